"""What every face's input shares: text safe to store (no NUL, no lone surrogate), the
strict base model all input models derive from, pages of lists, and parse, which turns a
validation error into the one `invalid_input` refusal."""

import re
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_core import PydanticCustomError

from kernel.refusals import Refusal

# A page of a list (REST's query, MCP's arguments): a limit above 100 gives 100.
Limit = Annotated[int, Field(ge=1, description="How many (at most 100 are given).")]
Offset = Annotated[int, Field(ge=0, le=2**31 - 1, description="How many to skip.")]


# NUL and lone surrogates: PostgreSQL cannot store them, UTF-8 cannot encode them.
UNSAFE_CHARACTERS = re.compile("[\x00\ud800-\udfff]")


def unsafe_text(text: str) -> bool:
    return UNSAFE_CHARACTERS.search(text) is not None


def unsafe_field(data: object, path: str = "") -> str | None:
    """The first field (dotted path) holding an unsafe string, key or value; or None."""
    stack = [(data, path)]
    while stack:
        value, where = stack.pop()
        if isinstance(value, str):
            if unsafe_text(value):
                return where or "body"
        elif isinstance(value, dict):
            for key, item in value.items():
                name = f"{where}.{key}" if where else str(key)
                if isinstance(key, str) and unsafe_text(key):
                    return where or "body"
                stack.append((item, name))
        elif isinstance(value, list | tuple):
            stack.extend((item, f"{where}.{i}") for i, item in enumerate(value))
    return None


class Input(BaseModel):
    """Every input model, whichever face parses it (REST, MCP, pages), refuses NUL and
    lone surrogates in any string: one check, so no face can store what another refuses."""

    model_config = ConfigDict(extra="forbid", strict=True)

    @model_validator(mode="before")
    @classmethod
    def safe_strings(cls, data: object) -> object:
        if (field := unsafe_field(data)) is not None:
            raise PydanticCustomError(
                "unsafe_text",
                "Text may not contain NUL characters or lone surrogates (in {field})",
                {"field": field},
            )
        return data


def parse[T: BaseModel](model: type[T], data: object) -> T:
    if not isinstance(data, dict):
        raise Refusal("invalid_input", "Send a JSON object.")
    try:
        return model.model_validate(data, strict=True)
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "body"
        raise Refusal("invalid_input", f"{field}: {first['msg']}.") from None
