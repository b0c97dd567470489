//! Generated source files of any size, for tests and benchmarks (here and in the daemon).
//!
//! Each generator repeats a fixed *unit* of realistic code (interfaces, classes, functions
//! calling each other across units), so size and symbol count are exact multiples of the
//! unit count. Not a stable API.

use std::fmt::Write as _;

/// Lines in one unit of [`generate_typescript`].
pub const TYPESCRIPT_UNIT_LINES: usize = 36;
/// Symbols in one unit of [`generate_typescript`]: an interface, a type alias, a
/// function, an arrow, a class and two methods.
pub const TYPESCRIPT_UNIT_SYMBOLS: usize = 7;
/// Lines in one unit of [`generate_python`].
pub const PYTHON_UNIT_LINES: usize = 32;
/// Symbols in one unit of [`generate_python`]: a class, three methods, two functions and a
/// nested function.
pub const PYTHON_UNIT_SYMBOLS: usize = 7;

/// A TypeScript file of `units` units ([`TYPESCRIPT_UNIT_LINES`] lines,
/// [`TYPESCRIPT_UNIT_SYMBOLS`] symbols each); unit `i` calls into unit `i + 1`.
pub fn generate_typescript(units: usize) -> String {
    let mut out = String::with_capacity(units * 1200);
    for i in 0..units {
        let j = (i + 1) % units.max(1);
        // Infallible: writing to a String.
        let _ = write!(
            out,
            r#"export interface Options{i} {{
  retries: number;
  label?: string;
}}

export type Id{i} = string | number;

export function parse{i}(input: string, options: Options{i} = {{ retries: 3 }}): Id{i}[] {{
  const parts = input.split(",").map((part) => part.trim());
  if (parts.length === 0) {{
    return [];
  }}
  return parts.map((p) => normalize{i}(p, options.retries));
}}

export const normalize{i} = (value: string, retries: number): Id{i} =>
  retries > 0 ? value.toLowerCase() : Number(value);

export class Service{i} {{
  private readonly cache = new Map<string, Id{i}[]>();

  async load(key: string): Promise<Id{i}[] | null> {{
    const cached = this.cache.get(key);
    if (cached) {{
      return cached;
    }}
    const parsed = parse{i}(key);
    this.store(key, parsed.concat([normalize{j}(key, 1)]));
    return parsed.length > 0 ? parsed : null;
  }}

  store(key: string, value: Id{i}[]): void {{
    this.cache.set(key, value);
  }}
}}

"#
        );
    }
    out
}

/// A Python file of `units` units ([`PYTHON_UNIT_LINES`] lines, [`PYTHON_UNIT_SYMBOLS`]
/// symbols each); unit `i` calls into unit `i + 1`.
pub fn generate_python(units: usize) -> String {
    let mut out = String::with_capacity(units * 1000);
    for i in 0..units {
        let j = (i + 1) % units.max(1);
        // Infallible: writing to a String.
        let _ = write!(
            out,
            r#"class Store{i}:
    """Keeps parsed values by key."""

    def __init__(self, name: str, retries: int = 3) -> None:
        self.name = name
        self.retries = retries
        self.cache: dict[str, list[str]] = {{}}

    def load(self, key: str) -> list[str] | None:
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        parsed = parse_{i}(key, retries=self.retries)
        self.store(key, parsed)
        return parsed or None

    @staticmethod
    def store(key: str, value: list[str]) -> None:
        print(key, len(value))


def parse_{i}(text: str, *, retries: int = 3) -> list[str]:
    parts = [part.strip() for part in text.split(",")]
    return [normalize_{j}(p) for p in parts if p and retries]


@functools.cache
def normalize_{i}(value: str) -> str:
    def lower(v):
        return v.lower()

    return lower(value)
"#
        );
    }
    out
}

/// How a file nests `depth` levels deep (see [`deep`]): the shapes the nesting cap must
/// tell apart, what real code does and what only hostile input does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deep {
    /// A string concatenation of `depth + 1` terms in a field initializer (the JDK's
    /// `LocaleISOData.java`): deep, but no pattern starts at `+`. Java.
    JavaConcatenation,
    /// An `else if` ladder of `depth` branches. Java.
    JavaElseIf,
    /// A string concatenation of `depth + 1` terms. TypeScript.
    TypeScriptConcatenation,
    /// A string concatenation of `depth + 1` terms. Python.
    PythonConcatenation,
    /// A string concatenation of `depth + 1` terms. Go.
    GoConcatenation,
    /// `depth` nested calls (`a.b().b()…`), each a pattern's root. Java.
    JavaCallChain,
    /// `depth` nested calls. Go.
    GoCallChain,
    /// `depth` nested calls. Rust.
    RustCallChain,
    /// `depth` class expressions nested in one another (`class { m() { return class …`):
    /// five pattern roots a level. TypeScript.
    TypeScriptClasses,
}

impl Deep {
    /// Every shape.
    pub const ALL: [Deep; 9] = [
        Deep::JavaConcatenation,
        Deep::JavaElseIf,
        Deep::TypeScriptConcatenation,
        Deep::PythonConcatenation,
        Deep::GoConcatenation,
        Deep::JavaCallChain,
        Deep::GoCallChain,
        Deep::RustCallChain,
        Deep::TypeScriptClasses,
    ];

    /// The extension of the file's language.
    pub fn extension(self) -> &'static str {
        match self {
            Deep::JavaConcatenation | Deep::JavaElseIf | Deep::JavaCallChain => "java",
            Deep::TypeScriptConcatenation | Deep::TypeScriptClasses => "ts",
            Deep::PythonConcatenation => "py",
            Deep::GoConcatenation | Deep::GoCallChain => "go",
            Deep::RustCallChain => "rs",
        }
    }

    /// Whether the shape is one real code has, which must be analysed at any depth.
    pub fn ordinary(self) -> bool {
        matches!(
            self,
            Deep::JavaConcatenation
                | Deep::JavaElseIf
                | Deep::TypeScriptConcatenation
                | Deep::PythonConcatenation
                | Deep::GoConcatenation
        )
    }
}

/// A file nesting `shape` `depth` levels deep, with a function `probe` calling `g` beside
/// the deep part (so that an analysed file shows the rest was analysed too).
pub fn deep(shape: Deep, depth: usize) -> String {
    let r = |s: &str| s.repeat(depth);
    match shape {
        Deep::JavaConcatenation => format!(
            "class Data {{\n  static final String s =\n    \"aa\"{};\n  void probe() {{ g(); }}\n}}\n",
            r("\n    + \"bb\"")
        ),
        Deep::JavaElseIf => format!(
            "class Ladder {{\n  int m(int x) {{\n    if (x == 0) {{ return 0; }}{}\n    return -1;\n  }}\n  void probe() {{ g(); }}\n}}\n",
            r("\n    else if (x == 1) { return 1; }")
        ),
        Deep::TypeScriptConcatenation => format!(
            "export const s = 'aa'{};\nexport function probe() {{ g(); }}\n",
            r("\n  + 'bb'")
        ),
        Deep::PythonConcatenation => format!(
            "S = ('aa'{})\n\ndef probe():\n    g()\n",
            r("\n     + 'bb'")
        ),
        Deep::GoConcatenation => format!(
            "package p\n\nvar s = \"aa\"{}\n\nfunc probe() {{ g() }}\n",
            r(" +\n\t\"bb\"")
        ),
        Deep::JavaCallChain => format!(
            "class Chain {{\n  void m() {{ a{}; }}\n  void probe() {{ g(); }}\n}}\n",
            r(".b()")
        ),
        Deep::GoCallChain => format!(
            "package p\n\nfunc m() {{ a{} }}\n\nfunc probe() {{ g() }}\n",
            r(".b()")
        ),
        Deep::RustCallChain => format!("fn m() {{ a{}; }}\nfn probe() {{ g(); }}\n", r(".b()")),
        Deep::TypeScriptClasses => format!(
            "class A {{ m() {{ return {}1{} }} }}\nexport function probe() {{ g(); }}\n",
            r("class { m() { return "),
            r(" } }")
        ),
    }
}
