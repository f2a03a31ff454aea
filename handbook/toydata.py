"""Small, fixed datasets shared by several snippets (so a change to the toy data is made once)."""

# (prompt, chosen, rejected): a clearly better and a clearly worse answer to the same prompt.
PREFERENCE_PAIRS = [
    ("What is the capital of France?", " The capital of France is Paris.", " I do not know."),
    ("Two plus two equals", " four.", " nine maybe."),
    ("Answer yes or no.", " Yes.", " Maybe. I do not know."),
    ("Write a short poem about the sea.", " The sea is wide, the waves are blue.", " No."),
]

# Short chat prompts for GRPO runs on the tiny model.
CHAT_PROMPTS = ["Say hi.", "Count to three.", "Name a colour.", "Answer yes or no."]


def chat_prompts(repeat: int = 2):
    """A conversational prompt dataset: ``CHAT_PROMPTS`` repeated ``repeat`` times."""
    from datasets import Dataset

    return Dataset.from_list([{"prompt": [{"role": "user", "content": p}]} for p in CHAT_PROMPTS * repeat])


def low_token_reward(completion_ids, **kwargs):
    """A dense toy reward: the share of completion tokens whose id is below 64 (punctuation, digits, capitals).

    It rewards a narrow slice of the vocabulary, so the best policy is a peaked, low-entropy one: the tiny
    model drifts toward it within a few GRPO steps.
    """
    return [sum(t < 64 for t in ids) / max(len(ids), 1) for ids in completion_ids]
