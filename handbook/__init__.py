"""The handbook's own plumbing, which pages never show, grouped by job; imports flow one way, down this list:

- ``handbook.ui`` (the one table of UI strings), ``handbook.tiny`` and ``handbook.tiny_vlm`` (the tiny test
  models; each file's bytes are its model's recipe key): the base, importing nothing above it;
- ``handbook.content``: a page as data: front matter schema, the snippet contract, the validator, the thread sample;
- ``handbook.lanes``: running pages: the paste-run harness and its worker, the pytest plugin, the tiny-model run
  record and the real-model lane;
- ``handbook.versions``: the version matrix, its plan of columns and the Compatibility page's data;
- ``handbook.site``: what the MkDocs hooks render: badges and symptom boxes, charts, search text, the errors page,
  the log doctor's rules, the build cache and the site checks;
- ``handbook.__main__``: the contributor CLI (``python -m handbook``).
"""
