"""Small, fixed datasets shared by several snippets (so a change to the toy data is made once)."""

# (prompt, chosen, rejected): a clearly better and a clearly worse answer to the same prompt.
PREFERENCE_PAIRS = [
    ("What is the capital of France?", " The capital of France is Paris.", " I do not know."),
    ("Two plus two equals", " four.", " nine maybe."),
    ("Answer yes or no.", " Yes.", " Maybe. I do not know."),
    ("Write a short poem about the sea.", " The sea is wide, the waves are blue.", " No."),
]
