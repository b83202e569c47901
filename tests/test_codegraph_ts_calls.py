"""TypeScript call linking (the TypeScript compiler as the model): receivers typed by
declared return types and annotations, chained calls, calls of module-level variables,
``this.#private`` members, typed class fields and parameter properties, untyped parameters
that shadow outer names, import aliases, ``require('m').name`` and re-exports. Fixtures are
written in the TypeScript handbook's idioms."""

from __future__ import annotations

from pathlib import Path

from tests.codegraph_facts import build, calls

SHAPES = "src/shapes.ts"
CLIENT = "src/client.ts"
FILES = {
    SHAPES: (
        "export interface Shape {\n"  # 1
        "  area(): number;\n"
        "  scale: (factor: number) => Shape;\n"
        "}\n"
        "\n"  # 5
        "export class Circle implements Shape {\n"
        "  constructor(private readonly radius: number) {}\n"
        "  area(): number { return 3 * this.radius * this.radius; }\n"
        "  scale(factor: number): Circle { return new Circle(this.radius * factor); }\n"
        "  describe(): string { return 'circle'; }\n"  # 10
        "}\n"
        "\n"
        "export function makeCircle(radius: number): Circle {\n"
        "  return new Circle(radius);\n"
        "}\n"  # 15
        "\n"
        "export const makeShape = (radius: number): Shape => new Circle(radius);\n"
    ),
    "src/draw.ts": (
        "import {makeCircle, makeShape, Circle, type Shape} from './shapes';\n"  # 1
        "\n"
        "const circle = makeCircle(1);\n"
        "circle.describe();\n"
        "const shape: Shape = makeShape(2);\n"  # 5
        "shape.area();\n"
        "const made = new Circle(3);\n"
        "made.describe();\n"
        "makeCircle(1).scale(2).describe();\n"
        "\n"  # 10
        "export function draw(): number {\n"
        "  const local = makeShape(4);\n"
        "  return local.scale(2).area();\n"
        "}\n"
        "\n"  # 15
        "const scaled = makeCircle(1).scale(2);\n"
        "scaled.describe();\n"
    ),
    CLIENT: (
        "export type Reply = {\n"  # 1
        "  text: () => Promise<string>;\n"
        "} & Promise<Response>;\n"
        "\n"
        "export type Client = {\n"  # 5
        "  (url: string): Reply;\n"
        "  get: (url: string) => Reply;\n"
        "  extend: (options: object) => Client;\n"
        "};\n"
        "\n"  # 10
        "const createClient = (base: string): Client => {\n"
        "  return fetchWith(base) as Client;\n"
        "};\n"
        "\n"
        "const client = createClient('');\n"  # 15
        "export const send = client;\n"
        "\n"
        "export default client;\n"
    ),
    "src/app.ts": (
        "import api, {send} from './client';\n"  # 1
        "\n"
        "api('/users').text();\n"
        "api.get('/users');\n"
        "const child = api.extend({});\n"  # 5
        "child.get('/posts');\n"
        "send('/x');\n"
    ),
    "src/greeter.ts": (
        "class Logger {\n"  # 1
        "  log(message: string): void {}\n"
        "}\n"
        "\n"
        "class Formatter {\n"  # 5
        "  format(text: string): string { return text; }\n"
        "}\n"
        "\n"
        "export class Greeter {\n"
        "  #count = 0;\n"  # 10
        "  private readonly logger: Logger;\n"
        "\n"
        "  constructor(private readonly formatter: Formatter, logger: Logger) {\n"
        "    this.logger = logger;\n"
        "  }\n"  # 15
        "\n"
        "  greet(name: string): string {\n"
        "    this.#bump();\n"
        "    this.logger.log(name);\n"
        "    return this.formatter.format(name);\n"  # 20
        "  }\n"
        "\n"
        "  #bump(): void {\n"
        "    this.#count++;\n"
        "  }\n"  # 25
        "}\n"
    ),
    "src/text.ts": (
        "export function format(value: string): string {\n"  # 1
        "  return value.trim();\n"
        "}\n"
        "\n"
        "export function shout(value: string): string {\n"  # 5
        "  return value.toUpperCase();\n"
        "}\n"
    ),
    "src/index.ts": ("export {format as fmt} from './text';\nexport * from './text';\n"),
    "src/render.ts": (
        "import {format} from './text';\n"  # 1
        "\n"
        "export function render(format) {\n"
        "  return format('x');\n"
        "}\n"  # 5
        "\n"
        "export function plain(value: string): string {\n"
        "  return format(value);\n"
        "}\n"
    ),
    "src/aliases.ts": (
        "import {fmt, shout as yell} from './index';\n"  # 1
        "const trim = require('./text').format;\n"
        "\n"
        "fmt('a');\n"
        "yell('b');\n"  # 5
        "trim('c');\n"
    ),
}


def resolved(rows: list[tuple[object, ...]]) -> list[tuple[object, ...]]:
    """(callee, line, target path, target qualname) of each call, in order."""
    return [(r[1], r[2], r[3], r[4]) for r in rows]


def test_receivers_typed_by_declared_return_types_annotations_and_new(tmp_path: Path) -> None:
    graph = build(tmp_path, FILES)
    assert resolved(calls(graph, "src/draw.ts")) == [
        ("makeCircle", 3, SHAPES, "makeCircle"),
        ("circle.describe", 4, SHAPES, "Circle.describe"),  # makeCircle(): Circle
        ("makeShape", 5, SHAPES, "makeShape"),
        ("shape.area", 6, SHAPES, "Shape.area"),  # const shape: Shape
        ("Circle", 7, SHAPES, "Circle"),
        ("made.describe", 8, SHAPES, "Circle.describe"),  # new Circle()
        ("makeCircle", 9, SHAPES, "makeCircle"),
        ("makeCircle().scale", 9, SHAPES, "Circle.scale"),  # chained: scale(): Circle
        ("makeCircle().scale().describe", 9, SHAPES, "Circle.describe"),
        ("makeShape", 12, SHAPES, "makeShape"),
        ("local.scale", 13, SHAPES, "Shape.scale"),  # an arrow's declared return type
        ("local.scale().area", 13, SHAPES, "Shape.area"),  # a property's function type
        ("makeCircle", 16, SHAPES, "makeCircle"),
        ("makeCircle().scale", 16, SHAPES, "Circle.scale"),
        ("scaled.describe", 17, SHAPES, "Circle.describe"),  # typed by a chained call
    ]
    assert resolved(calls(graph, SHAPES)) == [
        ("Circle", 9, SHAPES, "Circle"),
        ("Circle", 14, SHAPES, "Circle"),
        ("Circle", 17, SHAPES, "Circle"),
    ]


def test_calls_of_module_level_variables_and_what_they_hold(tmp_path: Path) -> None:
    graph = build(tmp_path, FILES)
    assert resolved(calls(graph, "src/app.ts")) == [
        ("api", 3, CLIENT, "client"),  # the default export is the constant `client`
        ("api().text", 3, CLIENT, "Reply.text"),  # the call signature of Client
        ("api.get", 4, CLIENT, "Client.get"),
        ("api.extend", 5, CLIENT, "Client.extend"),
        ("child.get", 6, CLIENT, "Client.get"),  # extend: (...) => Client
        ("send", 7, CLIENT, "send"),  # a constant holding another: its own declaration
    ]
    assert resolved(calls(graph, CLIENT)) == [
        ("fetchWith", 12, "", ""),
        ("createClient", 15, CLIENT, "createClient"),
    ]


def test_private_members_typed_fields_and_parameter_properties(tmp_path: Path) -> None:
    graph = build(tmp_path, FILES)
    assert resolved(calls(graph, "src/greeter.ts")) == [
        ("this.#bump", 18, "src/greeter.ts", "Greeter.#bump"),
        ("this.logger.log", 19, "src/greeter.ts", "Logger.log"),  # a field's declared type
        ("this.formatter.format", 20, "src/greeter.ts", "Formatter.format"),  # a parameter
    ]  # property


def test_an_untyped_parameter_shadows_the_import_of_its_name(tmp_path: Path) -> None:
    graph = build(tmp_path, FILES)
    assert resolved(calls(graph, "src/render.ts")) == [
        ("format", 4, "", ""),  # the parameter, not the import
        ("format", 8, "src/text.ts", "format"),
    ]


def test_import_aliases_require_members_and_re_exports(tmp_path: Path) -> None:
    graph = build(tmp_path, FILES)
    assert resolved(calls(graph, "src/aliases.ts")) == [
        ("fmt", 4, "src/text.ts", "format"),  # export {format as fmt} from './text'
        ("yell", 5, "src/text.ts", "shout"),  # import {shout as yell}, through export *
        ("trim", 6, "src/text.ts", "format"),  # require('./text').format
    ]
