#!/usr/bin/env python3
"""The device-call checkers (red_check.py, sanitizer_cover.py, cut_check.py) against the calls'
stored files, each shown both passing and failing: a checker that has never said no proves
nothing. Runs in ctest (CMakeLists.txt) with no GPU, since it reads only files in reports/.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from run_files import read_text

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
H100 = os.path.join(ROOT, "reports", "h100")


def stored(name):
    return os.path.join(H100, name)


def run(script, *args):
    done = subprocess.run([sys.executable, os.path.join(HERE, script), *args],
                          capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


class RedCheck(unittest.TestCase):
    plain = stored("synccheck-demo-plain-331.json.gz")
    sanitized = stored("synccheck-demo-331.json.gz")

    def test_synccheck_demo_is_red(self):
        rc, out = run("red_check.py", "--plain", self.plain, "--sanitized", self.sanitized,
                      "--red", "st_barrier_divergent", "--quiet", "st_barrier_skipped")
        self.assertEqual(rc, 0, out)
        self.assertIn("5 of 5 checks hold", out)

    def test_memcheck_demo_is_red(self):
        rc, out = run("red_check.py", "--plain", stored("memcheck-demo-plain-334.json.gz"),
                      "--sanitized", stored("memcheck-demo-334.json.gz"), "--red", "st_reads_past_end")
        self.assertEqual(rc, 0, out)
        self.assertIn("3 of 3 checks hold", out)

    def test_a_run_with_no_sanitizer_is_not_red(self):
        rc, out = run("red_check.py", "--plain", self.plain, "--sanitized", self.plain,
                      "--red", "st_barrier_divergent")
        self.assertEqual(rc, 1, out)
        self.assertIn("FAILED  sanitized run: ERROR SUMMARY", out)

    def test_the_unreported_rung_is_not_red(self):
        rc, out = run("red_check.py", "--plain", self.plain, "--sanitized", self.sanitized,
                      "--red", "st_barrier_skipped")
        self.assertEqual(rc, 1, out)
        self.assertIn("FAILED  sanitized run: st_barrier_skipped reported at 0 place(s)", out)

    def test_a_reported_rung_is_not_quiet(self):
        rc, out = run("red_check.py", "--plain", self.plain, "--sanitized", self.sanitized,
                      "--red", "st_barrier_divergent", "--quiet", "st_barrier_divergent")
        self.assertEqual(rc, 1, out)
        self.assertIn("FAILED  sanitized run: st_barrier_divergent not reported (5 place(s))", out)


class InTempFolder(unittest.TestCase):
    """Tests that write the files they hand a checker into a folder of their own."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path


class BadInput(InTempFolder):
    """A file that is missing, not gzip, not JSON or not a run document stops each checker with
    a message naming it (exit 1), never a traceback."""

    def assert_refused(self, rc, out, path, words):
        self.assertEqual(rc, 1, out)
        self.assertIn(path, out)
        self.assertIn(words, out)
        self.assertNotIn("Traceback", out)

    def test_a_missing_run(self):
        path = os.path.join(self.tmp, "absent.json")
        rc, out = run("red_check.py", "--plain", path, "--sanitized", path, "--red", "x")
        self.assert_refused(rc, out, path, "cannot be read")

    def test_a_file_that_is_not_gzip(self):
        path = self.write("run.json.gz", "{}")
        self.write("run.txt.gz", "")
        rc, out = run("sanitizer_cover.py", stored("quick-f16-ladder.json.gz"), "--", path)
        self.assert_refused(rc, out, path, "cannot be read")

    def test_a_file_that_is_not_json(self):
        path = self.write("run.json", "{\"rungs\": [")
        rc, out = run("cut_check.py", path, self.write("run.txt", ""))
        self.assert_refused(rc, out, path, "not JSON")

    def test_a_document_without_rungs(self):
        path = self.write("ladder.json", "[1, 2]")
        rc, out = run("sanitizer_cover.py", path, "--", stored("synccheck-f16-331.json.gz"))
        self.assert_refused(rc, out, path, 'expected an object with a "rungs" list')

    def test_a_rung_without_a_verdict(self):
        path = self.write("run.json", '{"rungs": [{"name": "a", "verdict": "PASS"}, {"name": "b"}]}')
        rc, out = run("red_check.py", "--plain", path, "--sanitized", path, "--red", "a")
        self.assert_refused(rc, out, path, "rungs[1]: expected verdict")


class SanitizerCover(InTempFolder):
    ladder = stored("quick-f16-ladder.json.gz")
    run_doc = stored("synccheck-f16-331.json.gz")

    def copy_run(self, edit_doc=None, edit_log=None):
        """The stored run and its log, copied under the temporary folder after the edits."""
        doc = json.loads(read_text(self.run_doc))
        log = read_text(stored("synccheck-f16-331.txt.gz"))
        if edit_doc:
            edit_doc(doc)
        if edit_log:
            log = edit_log(log)
        self.write("run.txt", log)
        return self.write("run.json", json.dumps(doc))

    def test_every_f16_rung_covered(self):
        rc, out = run("sanitizer_cover.py", self.ladder, "--", self.run_doc)
        self.assertEqual(rc, 0, out)
        self.assertIn("299 of 299 rungs passed in 1 run(s); 0 finding(s)", out)

    def test_a_failed_rung_is_a_finding(self):
        def fail_first(doc):
            doc["rungs"][0]["verdict"] = "FAIL"
        rc, out = run("sanitizer_cover.py", self.ladder, "--", self.copy_run(edit_doc=fail_first))
        self.assertEqual(rc, 1, out)
        self.assertIn(": FAIL in ", out)

    def test_an_error_in_the_log_is_a_finding(self):
        def one_error(log):
            return log.replace("ERROR SUMMARY: 0 errors", "ERROR SUMMARY: 1 error")
        rc, out = run("sanitizer_cover.py", self.ladder, "--", self.copy_run(edit_log=one_error))
        self.assertEqual(rc, 1, out)
        self.assertIn("expected one clean summary", out)

    def test_a_clean_racecheck_summary_is_no_finding(self):
        runs = [stored(n + ".json.gz") for n in
                ("racecheck-f32-bwd-335", "racecheck-f32-fwd-335", "racecheck-f32-left-337")]
        rc, out = run("sanitizer_cover.py", stored("quick-f32-ladder.json.gz"), "--", *runs)
        self.assertEqual(rc, 1, out)  # call 338's rungs are missing, and only they
        self.assertNotIn("clean summary", out)
        self.assertNotIn("other sanitizer line", out)
        self.assertIn("186 of 299 rungs passed in 3 run(s); 113 finding(s)", out)

    def test_racecheck_warnings_are_a_finding_though_every_rung_passed(self):
        runs = [stored(n + ".json.gz") for n in
                ("racecheck-f32-bwd-335", "racecheck-f32-fwd-335", "racecheck-f32-left-337",
                 "racecheck-f32-left-338")]
        rc, out = run("sanitizer_cover.py", stored("quick-f32-ladder.json.gz"), "--", *runs)
        self.assertEqual(rc, 1, out)
        self.assertIn("RACECHECK SUMMARY: 5 hazards displayed (0 errors, 40 warnings)']", out)
        self.assertIn("Race reported between Read access at void ladder::layernorm_fwd_bulk<", out)
        self.assertIn("299 of 299 rungs passed in 4 run(s); 2 finding(s)", out)

    def test_a_rung_missing_from_the_runs_is_a_finding(self):
        def drop_first(doc):
            del doc["rungs"][0]
        rc, out = run("sanitizer_cover.py", self.ladder, "--", self.copy_run(edit_doc=drop_first))
        self.assertEqual(rc, 1, out)
        self.assertIn("298 of 299 rungs passed", out)


class CutCheck(unittest.TestCase):
    def check(self, name):
        return run("cut_check.py", stored(name + ".json.gz"), stored(name + ".txt.gz"))

    def test_a_cut_that_kept_what_it_should(self):
        rc, out = self.check("cut-plain-322")
        self.assertEqual(rc, 0, out)

    def test_a_cut_that_lost_what_it_should_have_kept(self):
        rc, out = self.check("cut-plain-321")
        self.assertEqual(rc, 1, out)


if __name__ == "__main__":
    unittest.main(verbosity=2)
