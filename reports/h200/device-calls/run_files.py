"""Shared by the device-call scripts that read what a call brought back: a file's text, gzipped
(ladder_ops in call_env.sh compresses its run documents and logs) or plain, and the log that
ladder_ops writes beside a run's document. A file that cannot be read, or is not the document
expected, stops the script with a message naming it, not a traceback."""
import gzip
import json
import os


def read_text(path):
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt", errors="replace") as f:
            return f.read()
    except (OSError, EOFError) as e:  # gzip.BadGzipFile is an OSError
        raise SystemExit(f"{path}: cannot be read ({e})")


def read_rungs(path, keys=("name",)):
    """A runner's document or a ladder: the JSON object at `path`, whose "rungs" must be a list of
    objects each holding `keys` (a run document's rungs have "name" and "verdict")."""
    try:
        doc = json.loads(read_text(path))
    except json.JSONDecodeError as e:
        raise SystemExit(f"{path}: not JSON ({e})")
    rungs = doc.get("rungs") if isinstance(doc, dict) else None
    if not isinstance(rungs, list):
        raise SystemExit(f'{path}: expected an object with a "rungs" list')
    for i, rung in enumerate(rungs):
        missing = [k for k in keys if not isinstance(rung, dict) or k not in rung]
        if missing:
            raise SystemExit(f"{path}: rungs[{i}]: expected {', '.join(missing)}")
    return doc


def log_path_of(run_path):
    for suffix in (".json.gz", ".json"):
        if run_path.endswith(suffix):
            stem = run_path[: -len(suffix)]
            for log in (stem + ".txt.gz", stem + ".txt"):
                if os.path.exists(log):
                    return log
            raise SystemExit(f"{run_path}: no log beside it ({stem}.txt.gz or {stem}.txt)")
    raise SystemExit(f"{run_path}: expected a name ending in .json or .json.gz")
