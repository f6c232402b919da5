"""Shared by the device-call scripts that read what a call brought back: a file's text, gzipped
(ladder_ops in call_env.sh compresses its run documents and logs) or plain, and the log that
ladder_ops writes beside a run's document."""
import gzip
import os


def read_text(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", errors="replace") as f:
        return f.read()


def log_path_of(run_path):
    for suffix in (".json.gz", ".json"):
        if run_path.endswith(suffix):
            stem = run_path[: -len(suffix)]
            for log in (stem + ".txt.gz", stem + ".txt"):
                if os.path.exists(log):
                    return log
            raise SystemExit(f"{run_path}: no log beside it ({stem}.txt.gz or {stem}.txt)")
    raise SystemExit(f"{run_path}: expected a name ending in .json or .json.gz")
