"""The handbook's own plumbing, which pages never show: the snippet contract, the paste-run harness, the tiny
test model, the page schema and the contributor CLI."""
