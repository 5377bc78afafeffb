"""Helpers the tests share: CLI runs, input files, and the briefings the
parser and gate tests read (the real seeds when present, the project's own
fixtures always)."""
