"""How fast do the JS/TS, Go, Rust and Java extractors turn files into facts?

For each language: a corpus (real files found on this machine for JS/TS, e.g. npm's own
sources, else a generated one) is extracted file by file; the script prints files/s,
lines/s, the facts found, and the time tree-sitter alone needs to parse the same bytes, so
the cost of the Python walk shows as a ratio next to the parse; files/s and lines/s are
wall-clock, ``cpu s`` the process time (steadier on a shared machine). Nothing is written.

    .venv/bin/python bench/codegraph_langs.py                 # all languages, ~300 files each
    .venv/bin/python bench/codegraph_langs.py --files 1000 --json
    .venv/bin/python bench/codegraph_langs.py --js-dir ~/src/app --ts-dir ~/src/app
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

JS_DIRS = [Path("/usr/lib/node_modules/npm")]
TS_DIRS = [Path("/work/bench-tools/node_modules/@colbymchenry/codegraph")]
MAX_BYTES = 300_000  # skip bundles and minified files: the indexer would too


@dataclass
class Row:
    """One language's figures."""

    language: str
    corpus: str
    files: int
    lines: int
    seconds: float
    cpu_seconds: float
    parse_seconds: float
    files_per_s: float
    lines_per_s: float
    walk_over_parse: float
    symbols: int
    calls: int
    imports: int
    errors: int


def ts_source(i: int) -> str:
    return f"""import {{ Injectable }} from "@nestjs/common";
import {{ Repo{i % 7} }} from "./repo{i % 7}";
import * as util from "../util";

/** Service number {i}. */
@Injectable()
export class Service{i} extends Base implements Api{i % 3} {{
  private cache = new Map<string, number>();
  constructor(private readonly repo: Repo{i % 7}, private log = util.logger()) {{
    super();
  }}
  /** Finds one. */
  async find(id: string): Promise<number | undefined> {{
    const hit = this.cache.get(id);
    if (hit !== undefined) return hit;
    const row = await this.repo.load(id, {{ retries: 3 }});
    this.log.info(`loaded ${{id}}`);
    return row?.value ?? util.fallback(id);
  }}
  list = (ids: string[]) => ids.map((id) => this.find(id)).filter(Boolean);
}}

export function helper{i}(a: number, b = util.two()): number {{
  return Math.max(a, b) + helper{max(i - 1, 0)}(a - 1);
}}

export const handler{i} = async (req: Request): Promise<Response> => {{
  const svc = new Service{i}(new Repo{i % 7}());
  return new Response(JSON.stringify(await svc.find(req.url)));
}};
"""


def go_source(i: int) -> str:
    return f"""// Package p{i % 10} is generated.
package p{i % 10}

import (
\t"context"
\t"fmt"
\tst "example.com/app/store{i % 5}"
)

// Server{i} serves.
type Server{i} struct {{
\tdb    *st.DB
\tname  string
\tcache map[string]int
}}

// NewServer{i} makes a server.
func NewServer{i}(db *st.DB) *Server{i} {{
\treturn &Server{i}{{db: db, cache: map[string]int{{}}}}
}}

// Handle handles one request.
func (s *Server{i}) Handle(ctx context.Context, key string) (int, error) {{
\tif v, ok := s.cache[key]; ok {{
\t\treturn v, nil
\t}}
\trow, err := s.db.Get(ctx, key)
\tif err != nil {{
\t\treturn 0, fmt.Errorf("get %s: %w", key, err)
\t}}
\ts.cache[key] = row.Value
\treturn row.Value, nil
}}

func (s Server{i}) Name() string {{ return fmt.Sprintf("server-%s", s.name) }}

type Getter{i} interface {{
\tHandle(ctx context.Context, key string) (int, error)
}}
"""


def rust_source(i: int) -> str:
    return f"""use crate::store::{{Db, Row as R}};
use std::collections::HashMap;

/// Server {i}.
#[derive(Debug, Clone)]
pub struct Server{i} {{
    db: Db,
    cache: HashMap<String, u64>,
}}

impl Server{i} {{
    /// Makes one.
    pub fn new(db: Db) -> Self {{
        Server{i} {{ db, cache: HashMap::new() }}
    }}

    pub fn handle(&mut self, key: &str) -> Result<u64, String> {{
        if let Some(v) = self.cache.get(key) {{
            return Ok(*v);
        }}
        let row: R = self.db.get(key).map_err(|e| format!("get {{}}: {{}}", key, e))?;
        self.cache.insert(key.to_string(), row.value);
        println!("loaded {{}}", helper_{i}(row.value));
        Ok(row.value)
    }}
}}

impl std::fmt::Display for Server{i} {{
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {{
        write!(f, "server {{}}", self.cache.len())
    }}
}}

pub fn helper_{i}(x: u64) -> u64 {{
    x.saturating_mul(2).max(1)
}}
"""


def java_source(i: int) -> str:
    return f"""package com.acme.p{i % 10};

import com.acme.store.Db;
import java.util.*;

/** Server {i}. */
public class Server{i} extends Base implements Handler {{
    private final Db db;
    private final Map<String, Long> cache = new HashMap<>();
    public static final int LIMIT = {i};

    public Server{i}(Db db) {{
        this.db = db;
    }}

    /** Handles one key. */
    @Override
    public long handle(String key) {{
        Long hit = cache.get(key);
        if (hit != null) {{
            return hit;
        }}
        var row = this.db.get(key);
        cache.put(key, row.value());
        return Helpers.clamp(row.value(), LIMIT);
    }}

    public long handle(String key, long fallback) {{
        return Optional.ofNullable(cache.get(key)).orElse(fallback);
    }}

    static class Stats {{
        int hits;
        void hit() {{ hits++; }}
    }}
}}
"""


GENERATORS: dict[str, tuple[str, Callable[[int], str]]] = {
    "typescript": (".ts", ts_source),
    "go": (".go", go_source),
    "rust": (".rs", rust_source),
    "java": (".java", java_source),
}
MODULES = {
    "javascript": "lang_js",
    "typescript": "lang_js",
    "tsx": "lang_js",
    "go": "lang_go",
    "rust": "lang_rust",
    "java": "lang_java",
}


def real_files(dirs: list[Path], suffixes: tuple[str, ...], limit: int) -> list[tuple[str, bytes]]:
    """Up to ``limit`` files with ``suffixes`` under ``dirs`` (read only, sorted)."""
    found: list[tuple[str, bytes]] = []
    for root in dirs:
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*")):
            if path.suffix in suffixes and path.is_file() and path.stat().st_size < MAX_BYTES:
                if path.name.endswith((".min.js", ".d.ts")):
                    continue
                found.append((str(path), path.read_bytes()))
                if len(found) >= limit:
                    return found
    return found


def corpus(
    language: str, limit: int, args: argparse.Namespace
) -> tuple[str, list[tuple[str, bytes]]]:
    """(description, files) for one language: real files when there are enough, else generated."""
    if language == "javascript":
        files = real_files(args.js_dir or JS_DIRS, (".js", ".cjs", ".mjs"), limit)
        return "npm sources on this machine", files
    if language == "typescript":
        files = real_files(args.ts_dir or TS_DIRS, (".ts",), limit)
        if len(files) >= limit // 4:
            return "TypeScript sources on this machine", files
    suffix, make = GENERATORS[language]
    return "generated", [(f"gen{i}{suffix}", make(i).encode()) for i in range(limit)]


def measure(language: str, files: list[tuple[str, bytes]], description: str) -> Row:
    from tree_sitter import Parser

    ex = importlib.import_module(f"clawql_git.codegraph.{MODULES[language]}").EXTRACTOR
    ex.extract("warm", b"", language)
    parser: Parser = ex._parsers._parsers[language]  # the same grammar, for the parse-only pass
    start = time.perf_counter()
    for _, source in files:
        parser.parse(source)
    parse_seconds = time.perf_counter() - start
    symbols = calls = imports = errors = 0
    start, cpu = time.perf_counter(), time.process_time()
    for path, source in files:
        facts = ex.extract(path, source, language)
        symbols += len(facts.symbols)
        calls += len(facts.calls)
        imports += len(facts.imports)
        errors += facts.errors
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu
    lines = sum(source.count(b"\n") + 1 for _, source in files)
    return Row(
        language=language,
        corpus=description,
        files=len(files),
        lines=lines,
        seconds=round(seconds, 3),
        cpu_seconds=round(cpu_seconds, 3),
        parse_seconds=round(parse_seconds, 3),
        files_per_s=round(len(files) / seconds, 1) if seconds else 0.0,
        lines_per_s=round(lines / seconds) if seconds else 0.0,
        walk_over_parse=round(seconds / parse_seconds, 2) if parse_seconds else 0.0,
        symbols=symbols,
        calls=calls,
        imports=imports,
        errors=errors,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=300, help="files per language")
    parser.add_argument("--languages", default="javascript,typescript,go,rust,java")
    parser.add_argument("--js-dir", type=Path, action="append", help="a JS corpus directory")
    parser.add_argument("--ts-dir", type=Path, action="append", help="a TS corpus directory")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args()
    rows = []
    for language in args.languages.split(","):
        description, files = corpus(language, args.files, args)
        print(f"{language}: {len(files)} files ({description})", file=sys.stderr)
        rows.append(measure(language, files, description))
    if args.json:
        print(json.dumps([asdict(r) for r in rows], indent=2))
        return
    header = (
        f"{'language':<11}{'files':>6}{'lines':>8}{'s':>7}{'cpu s':>7}{'files/s':>9}{'lines/s':>9}"
    )
    header += f"{'parse s':>9}{'x parse':>8}{'symbols':>8}{'calls':>7}{'errors':>7}  corpus"
    print(header)
    for r in rows:
        print(
            f"{r.language:<11}{r.files:>6}{r.lines:>8}{r.seconds:>7.2f}{r.cpu_seconds:>7.2f}"
            f"{r.files_per_s:>9.0f}"
            f"{r.lines_per_s:>9.0f}{r.parse_seconds:>9.2f}{r.walk_over_parse:>8.1f}"
            f"{r.symbols:>8}{r.calls:>7}{r.errors:>7}  {r.corpus}"
        )


if __name__ == "__main__":
    main()
