"""Shared by the device-call scripts that read what a call brought back: a file's text, gzipped
(ladder_ops in call_env.sh compresses its run documents and logs) or plain."""
import gzip


def read_text(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", errors="replace") as f:
        return f.read()
