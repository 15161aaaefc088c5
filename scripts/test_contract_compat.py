#!/usr/bin/env python3
"""scripts/contract-compat on test branches: a repository whose release v1.0.0 is today's
openapi.yaml (kept in releases/, with no tag, as a tagless CI clone sees it), and branches
that change it the ways an app would or would not notice.

    python3 scripts/test_contract_compat.py
"""
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "contract-compat"
Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def git(repo, *args):
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True)


class ContractCompat(unittest.TestCase):
    def setUp(self):
        self.repo = Path(tempfile.mkdtemp(prefix="contract-compat-"))
        (self.repo / "scripts").mkdir()
        shutil.copy(SCRIPT, self.repo / "scripts" / "contract-compat")
        shutil.copy(ROOT / "openapi.yaml", self.repo / "openapi.yaml")
        (self.repo / "releases" / "v1.0.0").mkdir(parents=True)
        shutil.copy(ROOT / "openapi.yaml", self.repo / "releases" / "v1.0.0" / "openapi.yaml")
        (self.repo / "CHANGELOG.md").write_text("# Changelog\n")
        git(self.repo, "init", "-q", "-b", "main")
        git(self.repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-a", "-m", "release", "--allow-empty")
        git(self.repo, "add", ".")
        git(self.repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "release")

    def tearDown(self):
        shutil.rmtree(self.repo)

    def branch(self, name, change, changelog=None):
        """A branch whose openapi.yaml is today's with `change` applied; the check's answer on it."""
        git(self.repo, "checkout", "-q", "-b", name, "main")
        document = yaml.load((self.repo / "openapi.yaml").read_text(), Loader=Loader)
        change(document)
        (self.repo / "openapi.yaml").write_text(yaml.dump(document, Dumper=Dumper, sort_keys=False))
        if changelog is not None:
            (self.repo / "CHANGELOG.md").write_text(changelog)
        git(self.repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-a", "-m", name)
        return subprocess.run([sys.executable, "scripts/contract-compat"], cwd=self.repo, capture_output=True, text=True)

    def test_unchanged_passes(self):
        result = self.branch("same", lambda d: None)
        self.assertEqual(result.returncode, 0, result.stdout)

    def test_the_newest_release_counts_by_number(self):
        """v1.10.0 is newer than v1.9.0: a field v1.10.0 added may not go, one only an
        older, larger-looking name lacked changes nothing."""
        def add(d):
            d["components"]["schemas"]["Event"]["properties"]["weather"] = {"type": "string", "nullable": True}
        document = yaml.load((self.repo / "openapi.yaml").read_text(), Loader=Loader)
        add(document)
        for name in ("v1.9.0", "v1.10.0"):
            (self.repo / "releases" / name).mkdir()
        shutil.copy(self.repo / "openapi.yaml", self.repo / "releases" / "v1.9.0" / "openapi.yaml")
        (self.repo / "releases" / "v1.10.0" / "openapi.yaml").write_text(yaml.dump(document, Dumper=Dumper, sort_keys=False))
        git(self.repo, "add", ".")
        git(self.repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "two releases")
        result = self.branch("after-two", lambda d: None)
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn("BREAKING: removed response field GET /v1/events/{id} 200 weather", result.stdout)
        self.assertIn("against v1.10.0", result.stdout)

    def test_a_kept_release_edited_after_its_tag_is_refused(self):
        git(self.repo, "tag", "v1.0.0")
        release = self.repo / "releases" / "v1.0.0" / "openapi.yaml"
        release.write_text(release.read_text().replace("title: SportLook", "title: SportLook edited", 1))
        git(self.repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-a", "-m", "edit a release")
        result = subprocess.run([sys.executable, "scripts/contract-compat"], cwd=self.repo, capture_output=True, text=True)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertIn("differs from what tag v1.0.0 holds", result.stderr)

    def test_dropping_a_response_field_fails(self):
        result = self.branch("drop", lambda d: d["components"]["schemas"]["Event"]["properties"].pop("title"))
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn("BREAKING: removed response field GET /v1/events/{id} 200 title", result.stdout)

    def test_adding_an_optional_field_passes(self):
        def add(d):
            d["components"]["schemas"]["Event"]["properties"]["weather"] = {"type": "string", "nullable": True}
            d["components"]["schemas"]["CodeRequest"]["properties"]["locale"] = {"type": "string"}
        result = self.branch("add", add)
        self.assertEqual(result.returncode, 0, result.stdout)

    def test_a_newly_required_request_field_fails_unless_listed_with_a_sunset(self):
        def require(d):
            d["components"]["schemas"]["CodeRequest"]["required"].append("device_key")
        name = "newly required request field POST /v1/auth/password/reset/start body.device_key"
        result = self.branch("require", require)
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn("BREAKING: " + name, result.stdout)
        git(self.repo, "checkout", "-q", "main")
        listed = self.branch("require-listed", require, changelog=f"- `{name}`: old apps kept working. Sunset: 2026-06-01.\n")
        self.assertEqual(listed.returncode, 0, listed.stdout)
        self.assertIn(name, listed.stdout)
        self.assertIn("its sunset (2026-06-01) come", listed.stdout)
        git(self.repo, "checkout", "-q", "main")
        early = self.branch("require-early", require, changelog=f"- `{name}`: old apps keep working. Sunset: 2999-06-01.\n")
        self.assertEqual(early.returncode, 1, early.stdout)
        self.assertIn("BREAKING before its sunset (2999-06-01): " + name, early.stdout)
        git(self.repo, "checkout", "-q", "main")
        undated = self.branch("require-undated", require, changelog=f"- `{name}`: no sunset given.\n")
        self.assertEqual(undated.returncode, 1, undated.stdout)

    def test_removing_an_enum_value_path_or_operation_fails(self):
        def remove(d):
            d["components"]["schemas"]["Event"]["properties"]["audience"]["enum"].remove("mixed")
            d["paths"].pop("/v1/sports")
            d["paths"]["/v1/events/{id}"].pop("delete")
        result = self.branch("remove", remove)
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn("BREAKING: removed enum value GET /v1/events/{id} 200 audience: mixed", result.stdout)
        self.assertIn("BREAKING: removed path /v1/sports", result.stdout)
        self.assertIn("BREAKING: removed operation DELETE /v1/events/{id}", result.stdout)

    def test_an_answer_field_made_nullable_optional_or_retyped_fails(self):
        def loosen(d):
            event = d["components"]["schemas"]["Event"]
            event["properties"]["title"]["nullable"] = True
            event["required"].remove("description")
            event["properties"]["going_count"] = {"type": "string"}
        result = self.branch("loosen", loosen)
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn("BREAKING: response field made nullable GET /v1/events/{id} 200 title", result.stdout)
        self.assertIn("BREAKING: response field no longer required GET /v1/events/{id} 200 description", result.stdout)
        self.assertIn("BREAKING: changed type GET /v1/events/{id} 200 going_count: integer -> string", result.stdout)

    def test_renamed_path_parameters_and_quoted_statuses_pass(self):
        def rename(d):
            item = d["paths"].pop("/v1/events/{id}/attendance")
            d["paths"]["/v1/events/{event_id}/attendance"] = item
            responses = item["post"]["responses"]
            responses["200"] = responses.pop("200") if "200" in responses else responses.pop(200)
        result = self.branch("rename", rename)
        self.assertEqual(result.returncode, 0, result.stdout)

    def test_a_field_no_longer_required_in_a_request_passes(self):
        result = self.branch("relax", lambda d: d["components"]["schemas"]["PasswordReset"]["required"].remove("code"))
        self.assertEqual(result.returncode, 0, result.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
