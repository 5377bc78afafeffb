"""Developer tools that are not part of kbsearch: the import-linter contract that finds cycles."""
