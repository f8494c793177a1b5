"""litaudit: audit published IR effectiveness claims and test-collection reusability."""

__version__ = "0.1.0"
