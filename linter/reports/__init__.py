"""Output formats. Each reporter turns a Result into text."""
