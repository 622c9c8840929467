"""The two prompts of information consistency: fact extraction and fact verification.

Both are this project's own wording, with demonstrations written for it (not FActScore's
or any other project's).

Extraction works one sentence at a time: the prompt holds the instruction and three
worked demonstrations, then the whole response (so that "it", "they" or "this process"
can be resolved), then the one sentence whose facts are wanted, marked between
``>>>`` and ``<<<``. The sentence is repeated *after* the response rather than marked
inside it, so every request for one response shares everything up to the sentence:
vLLM's prefix cache then reuses the instruction, the demonstrations and the response
across the sentences of a response, and the instruction and demonstrations across all
responses. The model answers with one fact per line starting with ``- ``, or ``None``.

Verification asks whether one fact is supported by one text. The text (the *context*:
the other side's response) comes FIRST, the instruction next and the fact LAST, so the
requests that check many facts against one context differ only in their last line and
share the rest as a cached prefix. The model answers with ``Supported`` or ``Not
supported`` (chosen over True/False because the words name the relation being judged and
"Not supported" reads naturally for a fact the context does not mention);
`xlcons.evaluators.information.parsing.parse_verdict` reads the answer.

Whitespace: the response and the context are passed as they are (their line breaks
carry lists and paragraphs), only stripped at both ends; a sentence or fact is collapsed
to one line, so it cannot break the prompt's layout.
"""

from __future__ import annotations

EXTRACTION_INSTRUCTION = (
    "Your task is to break a sentence into atomic facts. An atomic fact is a short statement "
    "that carries exactly one piece of information (one property, event, date, number or "
    "relation) and can be understood and checked on its own.\n\n"
    "You are given a response and one sentence taken from it, marked with >>> and <<<. "
    "List the atomic facts stated in the marked sentence, and only those. Read the rest of "
    'the response only to find out what words such as "it", "they" or "this method" '
    "refer to, and write the full name instead, so that every fact makes sense without the "
    "response. Do not add facts from other sentences or from your own knowledge. Greetings, "
    "opinions, offers of help, questions to the reader, headings without a claim, and "
    "statements the writer makes about itself (for example that it cannot answer) are not "
    "facts.\n\n"
    'Write one fact per line, each line starting with "- ". If the marked sentence states '
    "no fact, write only: None"
)

# Three worked demonstrations: pronouns resolved from the context, a sentence without any
# fact, and a compound sentence with a number and a cause.
EXTRACTION_DEMONSTRATIONS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        "The Danube rises in the Black Forest of Germany. It flows east for about 2,850 "
        "kilometres and passes through four capital cities before it reaches the Black Sea.",
        "It flows east for about 2,850 kilometres and passes through four capital cities "
        "before it reaches the Black Sea.",
        (
            "The Danube flows east.",
            "The Danube is about 2,850 kilometres long.",
            "The Danube passes through four capital cities.",
            "The Danube flows into the Black Sea.",
        ),
    ),
    (
        "Great question! Penicillin was discovered by Alexander Fleming in 1928. Let me know "
        "if you would like more detail.",
        "Great question!",
        (),
    ),
    (
        "Copper is widely used in electrical wiring. Because it conducts electricity well and "
        "is easy to draw into thin wires, it has been the standard material for cables since "
        "the late nineteenth century.",
        "Because it conducts electricity well and is easy to draw into thin wires, it has "
        "been the standard material for cables since the late nineteenth century.",
        (
            "Copper conducts electricity well.",
            "Copper is easy to draw into thin wires.",
            "Copper has been the standard material for cables since the late nineteenth century.",
            "Copper became the standard cable material because it conducts electricity well "
            "and is easy to draw into thin wires.",
        ),
    ),
)

NO_FACTS_ANSWER = "None"

VERIFICATION_HEADER = "Read the following text. Afterwards you will judge one statement against it."
VERIFICATION_INSTRUCTION = (
    'Is the statement below supported by the text above? Answer "Supported" if the text '
    'says it, or if it follows directly from what the text says. Answer "Not supported" if '
    "the text contradicts it or does not mention it. Judge only by the text, not by what you "
    "know yourself. Reply with exactly one of: Supported, Not supported."
)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _facts_block(facts: tuple[str, ...]) -> str:
    return "\n".join(f"- {fact}" for fact in facts) if facts else NO_FACTS_ANSWER


def _task(response: str, sentence: str) -> str:
    return f"Response:\n{response.strip()}\n\nMarked sentence: >>> {_one_line(sentence)} <<<\n\nFacts:"


def _demonstrations() -> str:
    return "\n\n".join(
        f"{_task(response, sentence)}\n{_facts_block(facts)}" for response, sentence, facts in EXTRACTION_DEMONSTRATIONS
    )


_EXTRACTION_PREFIX = f"{EXTRACTION_INSTRUCTION}\n\n{_demonstrations()}\n\n"


def extraction_prompt(response: str, sentence: str) -> str:
    """The prompt asking for the atomic facts of `sentence`, one sentence of `response`."""
    return _EXTRACTION_PREFIX + _task(response, sentence)


def verification_prompt(context: str, fact: str) -> str:
    """The prompt asking whether `context` supports `fact` (context first, fact last)."""
    return (
        f"{VERIFICATION_HEADER}\n\nText:\n{context.strip()}\n\n{VERIFICATION_INSTRUCTION}\n\nStatement: "
        f"{_one_line(fact)}\nAnswer:"
    )
