"""Reads iCalendar text with the `icalendar` package (PyPI) and prints what a phone's
calendar would take from it, as JSON: each VEVENT's uid, sequence, status, summary,
location, start and end (local wall time, time zone name and UTC offset), and the
time zones the calendar defines. Exits non-zero when the text does not parse.

Usage: python3 ics_read.py FILE
"""
import json
import sys

import icalendar

with open(sys.argv[1], "rb") as handle:
    calendar = icalendar.Calendar.from_ical(handle.read())

def moment(value):
    when = value.dt
    return {"local": when.strftime("%Y-%m-%dT%H:%M"), "zone": str(getattr(when.tzinfo, "key", None) or when.tzinfo),
            "offset": int(when.utcoffset().total_seconds()) if when.utcoffset() is not None else None}

events = []
for component in calendar.walk("VEVENT"):
    events.append({
        "uid": str(component.get("uid")), "sequence": int(component.get("sequence", 0)), "status": str(component.get("status")),
        "summary": str(component.get("summary")), "location": str(component.get("location")) if component.get("location") else None,
        "start": moment(component.get("dtstart")), "end": moment(component.get("dtend")),
    })
zones = [str(tz.get("tzid")) for tz in calendar.walk("VTIMEZONE")]
print(json.dumps({"name": str(calendar.get("x-wr-calname")), "events": events, "zones": zones}))
