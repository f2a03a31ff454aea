"""rlhf-doctor: read a training log and name the RLHF Pitfalls Handbook pages that match, with the evidence.

The rules come from the handbook pages' front matter (``doctor:``), exported to ``rules.json`` by
``python -m handbook doctor-rules`` and checked against every page's recorded symptom and fix runs.
"""

from rlhf_doctor.rules import diagnose, load_rules

__all__ = ["diagnose", "load_rules"]
