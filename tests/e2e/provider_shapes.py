"""Strict checks of JSON values against the request types of the providers' Python SDKs.

The SDKs describe request bodies as TypedDicts (anthropic, openai) or pydantic models
(google-genai, mcp). Neither refuses what the API refuses out of the box: a TypedDict is
only a hint, and pydantic ignores unknown keys unless told otherwise. `check` walks a
TypedDict annotation by hand and `check_model` runs a pydantic model with unknown keys
refused; both return problems as `"<json path>: <reason>"`, e.g.
`[3].function.parameters: expected an object, got array`, and an empty list when the
value fits.
"""

from __future__ import annotations

import collections.abc
import enum
import json
import types
import typing
import warnings
from typing import Any

import pydantic
import typing_extensions

# Wrappers that say something about the key, not the value: strip them.
_KEY_MARKERS = {typing.Required, typing.NotRequired, typing_extensions.Required, typing_extensions.NotRequired}
_LISTS = {list, collections.abc.Iterable, collections.abc.Sequence}
_MAPS = {dict, collections.abc.Mapping}


def join(path: str, step: str | int) -> str:
    return f"{path}[{step}]" if isinstance(step, int) else f"{path}.{step}" if path else step


def show(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def kind(value: Any) -> str:
    """The JSON name of a value's type, for messages."""
    for name, cls in (("null", type(None)), ("boolean", bool), ("integer", int), ("number", float),
                      ("string", str), ("array", list), ("object", dict)):
        if isinstance(value, cls):
            return name
    return type(value).__name__


def name_of(tp: Any) -> str:
    return getattr(tp, "__name__", None) or str(tp).replace("typing.", "")


def _strip(tp: Any) -> Any:
    while typing.get_origin(tp) in _KEY_MARKERS or typing.get_origin(tp) is typing.Annotated:
        tp = typing.get_args(tp)[0]
    return tp


def _fields(td: Any) -> tuple[dict[str, Any], set[str]]:
    """A TypedDict's key types and its required keys.

    The SDK modules use `from __future__ import annotations`; on Python < 3.13 the class's
    `__required_keys__` then misses `Required[...]` written inside a `total=False` class
    (the marker is still a string when the class is made). So read the markers from the
    evaluated hints, and trust `__required_keys__` only for keys without a marker.
    """
    hints = typing.get_type_hints(td, include_extras=True)
    required = set()
    for key, hint in hints.items():
        origin = typing.get_origin(hint)
        if origin in (typing.Required, typing_extensions.Required) or (
            key in td.__required_keys__ and origin not in (typing.NotRequired, typing_extensions.NotRequired)
        ):
            required.add(key)
    return hints, required


def check(value: Any, tp: Any, path: str = "") -> list[str]:
    """Problems of a decoded JSON `value` against the annotation `tp`; [] if it fits."""
    tp = _strip(tp)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp in (Any, object):
        return []  # the SDK says "any JSON value" (JSON Schema fragments, examples)
    if tp is None or tp is type(None):
        return [] if value is None else [f"{path}: expected null, got {kind(value)}"]
    if origin in (typing.Union, types.UnionType):
        return _check_union(value, args, path)
    if origin is typing.Literal or origin is typing_extensions.Literal:
        # `True == 1` in Python, so compare types too.
        if any(value == a and type(value) is type(a) for a in args):
            return []
        return [f"{path}: {show(value)} is not one of {json.dumps(list(args))}"]
    if typing_extensions.is_typeddict(tp):
        return _check_typeddict(value, tp, path)
    if origin in _LISTS:
        # JSON has only arrays; a string is not a sequence of strings here (SequenceNotStr).
        if not isinstance(value, list):
            return [f"{path}: expected an array, got {kind(value)}"]
        return [p for i, item in enumerate(value) for p in check(item, args[0] if args else Any, join(path, i))]
    if origin in _MAPS or tp in _MAPS:
        if not isinstance(value, dict):
            return [f"{path}: expected an object, got {kind(value)}"]
        return [p for k, v in value.items() for p in check(v, args[1] if args else Any, join(path, k))]
    scalars = {str: ("string", (str,)), bool: ("boolean", (bool,)), int: ("integer", (int,)),
               float: ("number", (int, float))}
    if tp in scalars:
        name, classes = scalars[tp]
        # bool is an int in Python but not in JSON.
        if isinstance(value, classes) and (tp is bool or not isinstance(value, bool)):
            return []
        return [f"{path}: expected {name}, got {kind(value)}"]
    # Better to stop than to pass something the walk does not understand.
    raise TypeError(f"provider_shapes.check: unsupported annotation {tp!r} at {path or '<root>'}")


def _check_typeddict(value: Any, td: Any, path: str) -> list[str]:
    if not isinstance(value, dict):
        return [f"{path}: expected an object ({td.__name__}), got {kind(value)}"]
    hints, required = _fields(td)
    problems = [f"{join(path, key)}: missing required key" for key in sorted(required - value.keys())]
    # The SDK marks the few open objects (a JSON Schema, say) with pydantic `extra: allow`.
    if getattr(td, "__pydantic_config__", {}).get("extra") != "allow":
        problems += [f"{join(path, key)}: unknown key (not in {td.__name__})" for key in value if key not in hints]
    for key, item in value.items():
        if key in hints:
            problems += check(item, hints[key], join(path, key))
    return problems


def _is_any_object(tp: Any) -> bool:
    return typing.get_origin(tp) in _MAPS and typing.get_args(tp)[1:] in ((object,), (Any,))


def _check_union(value: Any, arms: tuple[Any, ...], path: str) -> list[str]:
    """Fits if one arm fits. If none does, report the closest arm: one whose `type`
    matches if there is one (the API picks the variant by `type`), then fewest problems."""
    # anthropic writes `Union[InputSchemaTyped, Dict[str, object]]` so that any dict
    # type-checks; the API still wants the typed shape (`"type": "object"`), so the
    # catch-all arm does not count next to a TypedDict.
    if any(typing_extensions.is_typeddict(_strip(a)) for a in arms):
        arms = tuple(a for a in arms if not _is_any_object(_strip(a)))
    tried = []
    for arm in arms:
        problems = check(value, arm, path)
        if not problems:
            return []
        wrong_type = any(p.startswith(join(path, "type") + ":") for p in problems)
        tried.append((wrong_type, len(problems), name_of(_strip(arm)), problems))
    wrong_type, _, arm_name, problems = min(tried, key=lambda t: t[:2])
    if len(arms) == 2 and type(None) in arms:
        return problems  # Optional[X]: X's problems say it all
    # Name the arm after the problem; an inner union's arm goes after the outer one.
    return [p.replace(" (as ", f" (as {arm_name} > ", 1) if " (as " in p else f"{p} (as {arm_name})"
            for p in problems]


def check_model(value: Any, model: type[pydantic.BaseModel], path: str = "", by_alias: bool = True,
                by_name: bool = False) -> list[str]:
    """Problems of `value` against a pydantic model, validated as JSON (so no "1" for 1)
    in strict mode with unknown keys refused at every depth. By default only the wire
    names (aliases) are accepted, not the Python field names."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # google-genai warns, then accepts, unknown enum values
            result = model.model_validate_json(
                json.dumps(value), strict=True, extra="forbid", by_alias=by_alias, by_name=by_name
            )
    except pydantic.ValidationError as error:
        problems = []
        for e in error.errors():
            where = path
            for step in e["loc"]:
                where = join(where, step)
            problems.append(f"{where}: {'unknown key' if e['type'] == 'extra_forbidden' else e['msg']}")
        return problems
    return _unknown_enum_values(result, path)


def _unknown_enum_values(model: Any, path: str) -> list[str]:
    """google-genai's case-insensitive enums turn an unknown value (`"objectx"` for a
    Schema type) into a made-up member with a warning; the API refuses it. Find them."""
    if isinstance(model, pydantic.BaseModel):
        out = []
        for field, info in type(model).model_fields.items():
            out += _unknown_enum_values(getattr(model, field), join(path, info.alias or field))
        return out
    if isinstance(model, (list, tuple)):
        return [p for i, item in enumerate(model) for p in _unknown_enum_values(item, join(path, i))]
    if isinstance(model, dict):
        return [p for k, item in model.items() for p in _unknown_enum_values(item, join(path, k))]
    if isinstance(model, enum.Enum) and model.name not in type(model).__members__:
        return [f"{path}: {show(model.value)} is not one of {json.dumps([m.value for m in type(model)])}"]
    return []
