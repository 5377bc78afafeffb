from kbsearch.cli import run

run()
