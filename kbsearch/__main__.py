import sys

from kbsearch.cli import main

sys.exit(main())
