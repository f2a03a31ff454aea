"""A page as data: the front matter schema, the snippet contract, the validator and the thread sample."""
