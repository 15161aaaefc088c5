#!/usr/bin/env python3
"""Offered rate against p99 latency, one line per database, from a capacity CSV.

Usage: plot_capacity.py CSV PNG TITLE BOUND_MS [UNIT]
The CSV has the columns label, kind, offered, p99_ms (and others); rows of kind
"step" make the lines, a row of kind "overload" is marked apart.
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    source, target, title, bound = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    unit = sys.argv[5] if len(sys.argv) > 5 else "messages/s"
    lines, overloads = {}, {}
    with open(source, newline="") as handle:
        for row in csv.DictReader(handle):
            point = (float(row["offered"]), float(row["p99_ms"]))
            (overloads if row["kind"] == "overload" else lines).setdefault(row["label"], []).append(point)
    figure, axes = plt.subplots(figsize=(7, 4.2), dpi=110)
    for label, points in sorted(lines.items()):
        points.sort()
        line, = axes.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=label)
        for x, y in overloads.get(label, []):
            axes.plot([x], [y], marker="x", markersize=10, color=line.get_color(), linestyle="none",
                      label=f"{label}: twice the capacity")
    axes.axhline(bound, color="grey", linestyle="--", linewidth=1, label=f"bound {bound:g} ms")
    axes.set_yscale("log")
    axes.set_xlabel(f"offered ({unit})")
    axes.set_ylabel("p99 latency (ms, log scale)")
    axes.set_title(title)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(target)


if __name__ == "__main__":
    main()
