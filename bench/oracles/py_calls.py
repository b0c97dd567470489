"""jedi as an oracle of call edges in Python, for `graph-eval`.

    python3 py_calls.py <repository root>   (file list on stdin)

stdin: repository-relative paths of the .py files wit indexes, one a line. stdout: one
JSON object per call site whose callee is a name (`f()`) or an attribute (`a.b.f()`):

    {"file", "line", "byte", "callee", "receiver", "target", "constructor"}

with the meanings of ts_calls.mjs: `line` is the 0-based line of the call's start
(`node.lineno - 1`), `byte` its UTF-8 byte offset, `receiver` the receiver as wit spells it
(a name or dotted chain without whitespace, `super()`, or "" for other expressions; null
for a plain call). `target` is what `jedi.Script.goto(follow_imports=True)` gives for the
called name (the attribute's own position for `a.f()`): null when jedi finds nothing, else
{"file", "name", "line", "name_line", "external", "function", "kind"}: `name` is the
definition's `full_name` without its module (`flask.app.Flask.route` -> `Flask.route`),
`external` when its module lies outside the repository (stdlib, typeshed, site-packages)
or is a stub (`file` is then the module's name: `json`, `builtins`), `function` when
jedi's type is `function` (functions and methods), `kind` jedi's type. `constructor` is
true when the name is a class: a constructor call, which graph-eval leaves out of every
count.

The project's sys.path puts the repository's `src/` (when there is one) and its root
before the interpreter's own paths: a src-layout package then resolves to its sources, as
an editable install would, even when a released copy of it is installed in site-packages.
"""

import ast
import json
import os
import sys

try:
    import jedi
except ImportError:
    sys.stderr.write("py_calls: python3 cannot import jedi (pip install jedi)\n")
    sys.exit(3)


def receiver_text(node, source_lines):
    """The receiver of a member call as wit's analyzer spells it (extract.rs, `Receiver`)."""
    text = segment(node, source_lines)
    if text is None:
        return ""
    if isinstance(node, ast.Call):
        return text if text == "super()" else ""
    if not isinstance(node, (ast.Name, ast.Attribute)):
        return ""
    if len(text.encode("utf-8")) > 256:
        return ""
    for ch in text:
        if ord(ch) < 0x80 and not (ch.isalnum() or ch in "_$.#:" or ch.isspace()):
            return ""
    return "".join(ch for ch in text if not ch.isspace())


def segment(node, source_lines):
    """The source text of a node (ast offsets are UTF-8 bytes)."""
    try:
        first, last = node.lineno - 1, node.end_lineno - 1
        if first == last:
            return source_lines[first][node.col_offset : node.end_col_offset].decode("utf-8")
        parts = [source_lines[first][node.col_offset :]]
        parts.extend(source_lines[first + 1 : last])
        parts.append(source_lines[last][: node.end_col_offset])
        return b"".join(parts).decode("utf-8")
    except (AttributeError, IndexError, UnicodeDecodeError):
        return None


def char_column(line_bytes, byte_col):
    """jedi counts columns in characters, ast in UTF-8 bytes."""
    return len(line_bytes[:byte_col].decode("utf-8", errors="replace"))


def describe(definition, root):
    """The target object of one jedi definition."""
    path = definition.module_path
    path = str(path) if path is not None else None
    rel = os.path.relpath(path, root) if path else None
    outside = rel is None or rel.startswith("..") or os.path.isabs(rel)
    stub = bool(path) and path.endswith(".pyi")
    full = definition.full_name or definition.name
    module = definition.module_name or ""
    name = full[len(module) + 1 :] if module and full.startswith(module + ".") else full
    line = (definition.line or 1) - 1
    return {
        # Outside the repository, the module says more than a path (`json`, `builtins`).
        "file": (module or "<builtin>") if outside else rel,
        "name": name,
        "line": line,
        "name_line": line,
        "external": outside or stub or definition.in_builtin_module(),
        "function": definition.type == "function",
        "kind": definition.type,
    }


def calls_of(tree):
    """The ast.Call nodes whose callee is a Name or an Attribute."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
            yield node


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: python3 py_calls.py <repository root> < files\n")
        sys.exit(2)
    root = os.path.realpath(sys.argv[1])
    files = [line.strip() for line in sys.stdin if line.strip()]
    env = jedi.get_default_environment()
    front = [os.path.join(root, "src")] if os.path.isdir(os.path.join(root, "src")) else []
    project = jedi.Project(root, sys_path=front + [root] + list(env.get_sys_path()), smart_sys_path=True)
    out = sys.stdout
    sites = 0
    for n, rel in enumerate(files):
        path = os.path.join(root, rel)
        try:
            with open(path, "rb") as f:
                raw = f.read()
            code = raw.decode("utf-8")
            tree = ast.parse(raw, filename=rel)
        except (SyntaxError, UnicodeDecodeError, ValueError) as e:
            sys.stderr.write(f"py_calls: {rel}: not parsed ({e})\n")
            continue
        lines = raw.split(b"\n")
        line_bytes = [0]
        for ln in lines:
            line_bytes.append(line_bytes[-1] + len(ln) + 1)
        script = jedi.Script(code, path=path, project=project)
        calls = sorted(calls_of(tree), key=lambda c: (c.lineno, c.col_offset))
        for call in calls:
            func = call.func
            if isinstance(func, ast.Name):
                callee, receiver = func.id, None
                at_line, at_byte = func.lineno, func.col_offset
            else:
                callee = func.attr
                receiver = receiver_text(func.value, lines)
                at_line, at_byte = func.end_lineno, func.end_col_offset - len(func.attr.encode("utf-8"))
            target, constructor = None, False
            try:
                column = char_column(lines[at_line - 1], at_byte)
                found = script.goto(at_line, column, follow_imports=True)
            except Exception as e:  # jedi's own failures: the site has no answer
                sys.stderr.write(f"py_calls: {rel}:{at_line}: jedi failed ({type(e).__name__}: {e})\n")
                found = []
            if found:
                d = found[0]
                if d.type == "class":
                    constructor = True
                target = describe(d, root)
            record = {
                "file": rel,
                "line": call.lineno - 1,
                "byte": line_bytes[call.lineno - 1] + call.col_offset,
                "callee": callee,
                "receiver": receiver,
                "target": target,
                "constructor": constructor,
            }
            out.write(json.dumps(record) + "\n")
            sites += 1
        if (n + 1) % 20 == 0:
            sys.stderr.write(f"py_calls: {n + 1} of {len(files)} files\n")
    sys.stderr.write(f"py_calls: {sites} call sites\n")


if __name__ == "__main__":
    main()
