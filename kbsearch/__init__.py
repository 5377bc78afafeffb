"""kbsearch: multilingual search and duplicate detection for a research team's knowledge base."""

__version__ = "0.1.0"
