"""Shared plumbing for the RLHF Pitfalls Handbook snippets: the tiny model, the runner, the page schema."""
