"""The one Markdown scanner (``handbook.content.markdown_scan``) that the validator, the paste test and the hooks
share."""

from __future__ import annotations

import importlib
import sys

from handbook.content import markdown_scan as ms
from handbook.content import pages

sys.path.insert(0, str(pages.ROOT / "hooks"))
i18n = importlib.import_module("i18n")

TEXT = """# Title {#top}

````markdown
```python
# not a heading, inside a fence
```
````

!!! note
    ```py
    x = 1
    ```

## Fix {#fix}
~~~text
## not a heading either
~~~
"""


def test_fences_open_and_close_like_python_markdown():
    fs = ms.fences(TEXT)
    assert [(f.line, f.lang, f.end) for f in fs] == [(3, "markdown", 7), (10, "py", 12), (15, "text", 17)]
    assert fs[0].lines == ["```python", "# not a heading, inside a fence", "```"]  # a longer fence holds a shorter one
    assert fs[1].is_python and fs[1].lines == ["x = 1"]  # indentation of the opener removed
    assert not fs[0].is_python


def test_headings_ignore_fenced_lines():
    assert ms.headings(TEXT) == [(1, "Title", "top"), (2, "Fix", "fix")]


def test_a_wrapped_issue_number_is_a_stray_heading():
    text = "The change proposed in\n#6263 was merged.\n\n```python\n#6263 in code is fine\n```\n## Real {#real}\n"
    assert ms.stray_headings(text) == [2]


def test_the_validator_rejects_a_stray_heading():
    page = pages.load(pages.DOCS / "online-rl" / "grpo-zero-std-group.md")
    page.body = page.body.replace("## Fix {#fix}", "see\n#1234 for the story\n\n## Fix {#fix}", 1)
    errors = pages.validate(page).errors
    assert any("would render as a heading" in e and e.startswith(page.rel + ":") for e in errors), errors


def test_cjk_lines_join_outside_fences_only():
    text = "中文第一行\n第二行\n\n```text\n代码一\n代码二\n```\n"
    assert i18n.join_cjk_lines(text) == "中文第一行第二行\n\n```text\n代码一\n代码二\n```\n"


def test_an_include_outside_a_python_fence_is_refused():
    page = pages.load(pages.DOCS / "online-rl" / "grpo-zero-std-group.md")
    page.body = page.body.replace("```python\n--8<--", "```pycon\n--8<--", 1)
    errors = pages.validate(page).errors
    assert any("```pycon fence is shown but never run" in e for e in errors), errors
