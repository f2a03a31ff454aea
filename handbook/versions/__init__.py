"""The version matrix: its plan of columns, its runs, and the data the Compatibility page renders."""
