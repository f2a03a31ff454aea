"""Every English and Chinese string the site's generated parts show, in one module (tests/test_ui.py checks that
each table has the same keys in both languages). Standard library only: anything may import it."""

from __future__ import annotations

HOME = ("Home", "首页")
"""The home page's navigation title (English, Chinese)."""

# Chapter folder -> (English title, Chinese title). Order here is the order of the navigation.
CHAPTERS: dict[str, tuple[str, str]] = {
    # short: they are the navigation tabs, and all ten must fit one desktop line (the chapter pages' own titles
    # and the home page's table say more)
    "start": ("Start here", "从这里开始"),
    "sft": ("SFT", "SFT 监督微调"),
    "debugging": ("Debugging", "调试"),
    "preference": ("Preference", "偏好优化"),
    "online-rl": ("GRPO & RLOO", "GRPO 与 RLOO"),
    "rewards": ("Rewards", "奖励"),
    "dynamics": ("Dynamics & data", "训练动态与数据"),
    "scale": ("Memory & scale", "显存与规模"),
    "integrations": ("Integrations", "报错与集成"),
    "walkthroughs": ("Walkthroughs", "实战演练"),
}

# Chapter folder -> (English, Chinese) one line on when to read it: the home page's chapter table.
CHAPTER_BLURBS: dict[str, tuple[str, str]] = {
    "start": (
        "how to read a page, the symptom finder, checked advice, compatibility",
        "如何阅读、症状索引、常见说法核查、版本兼容",
    ),
    "sft": ("loss will not fall, masks, EOS, packing, renamed arguments", "loss 不降、mask、EOS、packing、参数改名"),
    "debugging": ("sanity checks, logs, the log doctor, bug reports", "自检、日志、日志诊断、提交 bug 报告"),
    "preference": (
        "DPO / IPO / KTO / SimPO: rewards, β, length, noisy pairs",
        "DPO / IPO / KTO / SimPO：reward、β、长度、噪声偏好对",
    ),
    "online-rl": ("KL, entropy, clipping, sampling, reward functions", "KL、熵、裁剪、采样、奖励函数"),
    "rewards": (
        "reward hacking, scale, reward-model training, PPO-era advice",
        "奖励作弊、尺度、奖励模型训练、PPO 时代的经验",
    ),
    "dynamics": ("learning rates, forgetting, over-optimisation, data coverage", "学习率、遗忘、过度优化、数据覆盖"),
    "scale": ("out of memory, several GPUs, 7B recipes, upgrading TRL", "显存不足、多卡、7B 配方、升级 TRL"),
    "integrations": (
        "tracebacks, dataset columns, vLLM, PEFT adapters, DeepSpeed/FSDP, vision-language models",
        "报错信息、数据集列、vLLM、PEFT 适配器、DeepSpeed/FSDP、视觉语言模型",
    ),
    "walkthroughs": ("notebooks that plot a real metric curve", "画出真实指标曲线的 notebook"),
}
CHAPTER_TABLE = {"en": ("chapter", "for when"), "zh": ("章节", "适用情形")}

# Body sections of a pitfall page: anchor -> (English heading, Chinese heading), in this order.
SECTIONS: dict[str, tuple[str, str]] = {
    "symptom": ("Symptom", "症状"),
    "why": ("Why it happens", "原因"),
    "fix": ("Fix", "解决办法"),
    "evidence": ("Evidence", "证据"),
    "related": ("Related pages", "相关页面"),
}


# -- badges, symptom box and chapter tables (handbook/site/render.py) -------------------------------------------
LABELS = {
    "en": {
        "verdict": "Common advice",
        "holds": "holds",
        "corrected": "corrected",
        "wrong": "wrong",
        "obsolete": "outdated",
        "new": "not common advice",
        "applies": "Applies to TRL",
        "verified": "Verified on TRL",
        "verified_value": "{spans} ({n} of {total} releases)",
        "verified_title": "Every seed of this page's check passed on {n} of the {total} TRL releases the handbook "
        "runs it on ({spans}), each with the rest of the pinned test stack. Open the Compatibility page for every "
        "release and stack.",
        "verified_pin": "The TRL the test suite pins; the version matrix has not run this page on other releases yet.",
        "models": "Verified on models",
        "tiny_model": "tiny test model",
        "era": "Advice written for TRL",
        "snippet": "Tested snippet",
        "tiny": "Checked on the tiny test model only",
        "sources": "Reported in",
        "symptoms": "You may be here because you saw",
        "page": "Page",
        "claim": "Verdict",
        "fix_line": "Fix",
        "why": "Why",
        "older": "On other releases",
        "older_join": "; ",
        "none": "No pages yet.",
        "program": "The whole program",
        "copy_program": "Copy the whole program",
        "copied": "Copied",
        "download_program": "Download {file}",
        "run_as_is": "Every code block of this page, in order, as one file. Run it with `python {file}`",
        "run_default": " (it downloads `{model}` from the Hub)",
        "run_offline": "; offline, point it at a local model folder: `HANDBOOK_MODEL=/path/to/model python {file}`;"
        " on the small real model the handbook checks every page on: "
        "`HANDBOOK_MODEL=HuggingFaceTB/SmolLM2-135M-Instruct python {file}`.",
        "run_plain": ".",
        "run_how": "How to run it",
    },
    "zh": {
        "verdict": "常见说法",
        "holds": "成立",
        "corrected": "需修正",
        "wrong": "错误",
        "obsolete": "已过时",
        "new": "非常见说法",
        "applies": "适用 TRL 版本",
        "verified": "验证所用 TRL",
        "verified_value": "{spans}（{total} 个版本中 {n} 个通过）",
        "verified_title": "本页检查代码的每个随机种子，在本手册运行它的 {total} 个 TRL 版本中的 {n} 个上都通过"
        "（{spans}），其余依赖均为测试环境的固定版本。点开兼容性页面，查看每个版本与依赖组合的结果。",
        "verified_pin": "测试套件固定的 TRL 版本；版本矩阵还没有在其他版本上运行过本页。",
        "models": "验证所用模型",
        "tiny_model": "微型测试模型",
        "era": "该说法针对的 TRL",
        "snippet": "测试代码",
        "tiny": "仅在微型测试模型上验证",
        "sources": "用户报告",
        "symptoms": "你可能是因为看到了这些才来到这里",
        "page": "页面",
        "claim": "结论",
        "fix_line": "修复",
        "why": "原因",
        "older": "其他版本",
        "older_join": "；",
        "none": "暂无页面。",
        "program": "完整程序",
        "copy_program": "复制完整程序",
        "copied": "已复制",
        "download_program": "下载 {file}",
        "run_as_is": "本页所有代码块按顺序合成的一个文件。用 `python {file}` 运行",
        "run_default": "（会从 Hub 下载 `{model}`）",
        "run_offline": "；离线时指向本地模型目录：`HANDBOOK_MODEL=/path/to/model python {file}`；"
        "在本手册检查每一页所用的小型真实模型上运行："
        "`HANDBOOK_MODEL=HuggingFaceTB/SmolLM2-135M-Instruct python {file}`。",
        "run_plain": "。",
        "run_how": "如何运行",
    },
}

# -- the Compatibility page --------------------------------------------------------------------------------
COMPAT_LABELS = {
    "en": {
        "page": "Page",
        "range": "Range",
        "passed": "passed",
        "failed": "failed",
        "outside": "outside the page's range",
        "failed_on": "failed on TRL {trl}",
        "failed_on_tf": "failed on TRL {trl} with transformers {tf}",
        "outside_note": "{page} ({ranges}): {failed}: {reason}",
        "not_run": "not run",
        "skipped": "skipped",
        "stack": "The stack of each column",
        "none": "The matrix has not been run yet: `make matrix`.",
        "why": "What failed outside a page's range",
        "defects": "Known defects of a release",
        "defects_text": "A check that raises one of these errors on that release is skipped with the reason, by "
        "the test suite and by the matrix; the page's range is not narrowed for it.",
        "defect_cells": "{n} cells of the matrix skipped for it",
        "column": "Column",
        "kind": "Kind",
        "seconds": "Seconds",
        "kinds": {"pinned": "pinned stack", "transformers": "transformers bounds", "release": "release-day stack"},
        "pick": "Your versions",
        "needs_js": "Choose your TRL and transformers versions (this part needs JavaScript; the tables below do not).",
        "by_trl": "Every TRL release, on the pinned stack",
        "by_trl_text": "Only TRL differs between these columns, so a change between two of them is TRL's doing.",
        "by_stack": "The stacks users run",
        "by_stack_text": "Each TRL release with the transformers, accelerate and peft current on the day it was "
        "published (seed 0 only), and the newest TRL on the lowest transformers it accepts and on the newest one. "
        "TRL 0.19–0.28 appear only here: they fail on transformers 5.3 and later before any page runs (see "
        "[the import guards page](../integrations/trl-import-guards-transformers-5.md)), so they have no column on "
        "the pinned stack. A page that fails on a release outside its range says why on the page, under "
        "*On other releases*.",
        "out_none": "The handbook did not run TRL {trl}; the nearest releases it ran are {near}.",
        "out_range": "Do not apply to your versions (outside the page's range): {n}",
        "out_needs": "needs {ranges}",
        "out_failed": "Apply, but failed when the handbook ran them on TRL {trl}: {n}",
        "out_failed_with": "failed with transformers {tf}",
        "out_ok": "Apply and passed on every stack with TRL {trl} that the handbook ran: {n} pages.",
        "out_unobserved": "The handbook did not run TRL {trl} with transformers {tf}; with TRL {trl} it ran "
        "transformers {seen}.",
        "range_any": "any version",
        "range_except": "{bounds}, except {versions}",
        "range_any_except": "any version except {versions}",
        "range_sep": ", ",
        "range_join": "; ",
        "why_arg": "`{cls}` has no argument `{name}`",
        "why_import": "`{name}` cannot be imported from `{cls}`",
        "why_module": "there is no module `{name}`",
        "why_attr": "`{cls}` has no attribute `{name}`",
        "why_value": "`{name}` is not an accepted value",
        "why_claim": "the page's claim does not hold: {name}",
        "why_error": "the page's code fails: {error}",
        "out_why": "needs {ranges}; on TRL {trl}: {why}",
    },
    "zh": {
        "page": "页面",
        "range": "范围",
        "passed": "通过",
        "failed": "失败",
        "outside": "不在本页范围内",
        "failed_on": "在 TRL {trl} 上失败",
        "failed_on_tf": "在 TRL {trl} 配 transformers {tf} 时失败",
        "outside_note": "{page}（{ranges}）：{failed}：{reason}",
        "not_run": "未运行",
        "skipped": "跳过",
        "stack": "每一列的依赖版本",
        "none": "尚未运行版本矩阵：`make matrix`。",
        "why": "超出页面范围时失败的原因",
        "defects": "某个版本的已知缺陷",
        "defects_text": "在该版本上抛出下列错误的检查会带着原因被跳过（测试套件和版本矩阵都是如此）；"
        "页面的适用范围不会因此缩小。",
        "defect_cells": "矩阵中有 {n} 个单元格因此被跳过",
        "column": "列",
        "kind": "类型",
        "seconds": "秒",
        "kinds": {"pinned": "固定依赖", "transformers": "transformers 上下限", "release": "发布当天的依赖"},
        "pick": "你的版本",
        "needs_js": "选择你的 TRL 和 transformers 版本（这一部分需要 JavaScript，下面的表格不需要）。",
        "by_trl": "每个 TRL 版本，固定其余依赖",
        "by_trl_text": "这些列之间只有 TRL 不同，所以两列之间的变化是 TRL 造成的。",
        "by_stack": "用户实际使用的依赖组合",
        "by_stack_text": "每个 TRL 版本配上它发布当天最新的 transformers、accelerate 和 peft（只跑种子 0），"
        "以及最新 TRL 配它接受的最低 transformers 和最新 transformers。"
        "TRL 0.19–0.28 只出现在这里：它们在 transformers 5.3 及以后的版本上，任何页面运行之前就会失败（见"
        "[导入检查那一页](../integrations/trl-import-guards-transformers-5.md)），所以在固定依赖下没有对应的列。"
        "页面在其范围之外的版本上失败时，会在页面的“其他版本”一行说明原因。",
        "out_none": "本手册没有运行过 TRL {trl}；运行过的最接近的版本是 {near}。",
        "out_range": "不适用于你的版本（超出页面范围）：{n}",
        "out_needs": "需要 {ranges}",
        "out_failed": "适用，但本手册在 TRL {trl} 上运行时失败：{n}",
        "out_failed_with": "配 transformers {tf} 时失败",
        "out_ok": "适用，且在本手册运行过的每个 TRL {trl} 依赖组合上都通过：{n} 页。",
        "out_unobserved": "本手册没有运行过 TRL {trl} 配 transformers {tf}；TRL {trl} 运行时配的是 "
        "transformers {seen}。",
        "range_any": "任何版本",
        "range_except": "{bounds}，{versions} 除外",
        "range_any_except": "除 {versions} 以外的任何版本",
        "range_sep": "、",
        "range_join": "；",
        "why_arg": "`{cls}` 没有参数 `{name}`",
        "why_import": "无法从 `{cls}` 导入 `{name}`",
        "why_module": "没有模块 `{name}`",
        "why_attr": "`{cls}` 没有属性 `{name}`",
        "why_value": "不接受 `{name}` 这个取值",
        "why_claim": "本页的结论不成立：{name}",
        "why_error": "本页代码报错：{error}",
        "out_why": "需要 {ranges}；在 TRL {trl} 上：{why}",
    },
}

# -- the symptom finder ------------------------------------------------------------------------------------
FINDER = {
    "en": {
        "error": "An error message or a warning",
        "metrics": "A metric in the logs",
        "behaviour": "How the model or the run behaves",
        "memory": "Memory and speed",
    },
    "zh": {
        "error": "报错或警告信息",
        "metrics": "日志里的某个指标",
        "behaviour": "模型或训练过程的表现",
        "memory": "显存与速度",
    },
}

# the errors-by-message page (handbook/site/errors_page.py)
ERRORS_LABELS = {
    "en": {
        "count": "{lines} error and warning lines, {classes} classes.",
        "message": "Error or warning, as printed",
        "page": "Page",
    },
    "zh": {
        "count": "共 {lines} 条报错与警告，{classes} 个类别。",
        "message": "报错或警告原文",
        "page": "页面",
    },
}

# the filter box above the groups (docs/javascripts/finder.js fills {n})
FINDER_LABELS = {
    "en": {
        "label": "Filter the symptoms",
        "placeholder": "a word, a metric or an error, e.g. NaN",
        "one": "1 line has these words.",
        "many": "{n} lines have these words.",
        "none": "No line has all these words. Try fewer, or the search box at the top, which reads whole pages.",
    },
    "zh": {
        "label": "筛选症状",
        "placeholder": "一个词、指标名或报错，如 NaN",
        "one": "有 1 行含有这些词。",
        "many": "有 {n} 行含有这些词。",
        "none": "没有哪一行含有全部这些词。少写几个词再试，或者用页面顶部的搜索框，它会搜索整页内容。",
    },
}

# -- common advice, checked --------------------------------------------------------------------------------
ADVICE_GROUPS = {
    "000 §11.1": ("SFT", "SFT"),
    "000 §11.2": ("DPO, KTO and other preference methods", "DPO、KTO 等偏好方法"),
    "000 §11.3": ("PPO and GRPO", "PPO 与 GRPO"),
    "000 §11.4": ("Memory", "显存"),
    "000 §11.5": ("Several GPUs and nodes", "多卡与多机"),
    "000 §11.6": ("Debugging", "调试"),
    "000 §11.7": ("Recipes", "配方"),
    "000 §11.8": ("Upgrading to TRL 1.x", "升级到 TRL 1.x"),
    "000 §11.9": ("Versions", "版本"),
    "000 §11.10": ("Traps after TRL 1.0", "TRL 1.0 之后的新坑"),
    "000 §11.11": ("Take-aways", "要点"),
    "002 principle": ("Tuning notes: principles", "调参笔记：原则"),
    "002 trick": ("Tuning notes: tricks", "调参笔记：技巧"),
    "002 phenomenon": ("Tuning notes: what you see and what to do", "调参笔记：现象与对策"),
}
ADVICE_LABELS = {
    "en": {
        "advice": "Common advice",
        "verdict": "Verdict",
        "page": "Page",
        "open": "not checked yet",
        "guide": "discussed",
    },
    "zh": {"advice": "常见说法", "verdict": "结论", "page": "页面", "open": "尚未检验", "guide": "已讨论"},
}

# -- run charts (handbook/site/charts.py) -----------------------------------------------------------------------
CHART = {
    "en": {
        "symptom": "symptom run",
        "fix": "fix run",
        "step": "training step",
        "caption": "{metrics} per training step, logged by this page's check on {model} (TRL {trl}); "
        "line: seed 0{seeds}. Recorded by the test suite, not drawn by hand.",
        "tiny": "the tiny test model (this page has no passing real-model run)",
        "range": ", shaded: range over seeds {seeds}",
        "alt": "Line chart of {metrics} per training step for the {labels}.",
        "and": " and ",
    },
    "zh": {
        "symptom": "症状运行",
        "fix": "修复后运行",
        "step": "训练步数",
        "caption": "本页检查代码在 {model} 上（TRL {trl}）记录的 {metrics}（按训练步）；"
        "实线为随机种子 0{seeds}。数据来自测试套件的运行记录，而非手绘。",
        "tiny": "微型测试模型（本页没有通过的真实模型运行）",
        "range": "，阴影为随机种子 {seeds} 的范围",
        "alt": "{labels}的 {metrics} 随训练步变化的折线图。",
        "and": "与",
    },
}

# -- walkthrough notebooks (hooks/notebooks.py) --------------------------------------------------------------
NOTEBOOK = {
    "en": {"zoom_hint": "Tap to enlarge"},
    "zh": {"zoom_hint": "点按放大"},
}

# -- the theme templates (overrides/404.html, overrides/main.html), given to Jinja as hb_ui by hooks/i18n.py ---------
TEMPLATES = {
    "en": {
        "404_title": "404: no page here",
        "404_intro": "Nothing lives at this address: the page may have been renamed or moved. Find it by what you see:",
        "search": "Search",
        "search_placeholder": "Paste an error or a metric, e.g. frac_reward_zero_std",
        "finder": "What do you see? (the symptom finder)",
        "doctor": "The log doctor: paste your training log",
        "advice": "Common advice, checked",
        "home": "Home",
        "search_none": "No page has these words. Keep only the error or the metric name and try again, or find the "
        "page by what you see:",
        "search_none_finder": "What do you see?",
        "search_none_doctor": "the log doctor",
        "search_log": "This looks like a training log: ",
        "search_log_link": "hand it to the log doctor, which reads it whole and names the pages its metrics match",
    },
    "zh": {
        "404_title": "404：没有这个页面",
        "404_intro": "这个地址没有页面：也许它已改名或移动。按你看到的症状找：",
        "search": "搜索",
        "search_placeholder": "粘贴报错或指标名，如 frac_reward_zero_std",
        "finder": "你看到了什么？（症状索引）",
        "doctor": "日志诊断：粘贴你的训练日志",
        "advice": "常见说法，逐条验证",
        "home": "首页",
        "search_none": "没有页面含有这些词。少写几个词，只留报错或指标名再试；或者按症状找：",
        "search_none_finder": "你看到了什么？",
        "search_none_doctor": "日志诊断",
        "search_log": "这像是一段训练日志：",
        "search_log_link": "交给日志诊断，它读完整段日志，指出指标吻合的页面",
    },
}
