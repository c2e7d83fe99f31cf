/**
 * `--help`, readable: a small renderer over @effect/cli's command descriptors (the same options and
 * arguments the parser reads, so the help cannot drift from them). One line per flag (wrapped under
 * its description only when the terminal is too narrow), the global flags listed once, examples.
 * @effect/cli's own help prints four paragraphs per flag ("A true or false value." … "This setting
 * is optional.") and the built-in options with every command; this one does not.
 */
import type { CliCommand } from "./command.js"
import { columns, fit } from "./width.js"

/** One flag or argument as the help shows it. */
interface Item {
  readonly term: string
  readonly description: string
}

/** What a command's descriptor tells: its name, description, usage, flags and arguments. */
interface Described {
  readonly name: string
  readonly description: string
  readonly flags: ReadonlyArray<Item>
  readonly args: ReadonlyArray<Item>
  readonly usage: string
}

type Node = { readonly _tag: string; readonly [key: string]: any }

/** The plain text of a HelpDoc (its spans joined). */
const docText = (doc: Node | undefined): string => {
  if (doc === undefined || doc === null) return ""
  switch (doc._tag) {
    case "Text":
    case "Code":
    case "URI":
      return String(doc.value)
    case "Paragraph":
    case "Header":
    case "Strong":
    case "Weak":
    case "Highlight":
      return docText(doc.value)
    case "Sequence":
    case "Concat":
      return [docText(doc.left), docText(doc.right)].filter((t) => t !== "").join(" ")
    case "Enumeration":
      return (doc.elements as ReadonlyArray<Node>).map(docText).join(" ")
    default:
      return ""
  }
}

/** The placeholder of a value: the choices, or a name by the option (FILE, DIR, ID…), or its type. */
const placeholders: Record<string, string> = {
  dir: "DIR",
  cwd: "DIR",
  leaf: "ID",
  from: "ID",
  summary: "TEXT",
  store: "STORE",
  out: "DEST",
  html: "OUT",
  md: "OUT",
  session: "FILE",
  "api-url": "URL",
  "api-key": "KEY",
  "model-id": "ID"
}
const valueOf = (single: Node): string => {
  const type = single.primitiveType as Node
  if (type._tag === "Bool") return ""
  if (type._tag === "Choice") {
    return (type.alternatives as ReadonlyArray<readonly [string, unknown]>).map(([c]) => c).join("|")
  }
  return placeholders[single.name as string] ?? (type._tag === "Integer" ? "N" : String(type._tag).toUpperCase())
}

/** A default worth saying (not `false`, not none). */
const defaultText = (fallback: unknown): string => {
  if (fallback === false || fallback === undefined || fallback === null) return ""
  if (typeof fallback === "object" && (fallback as { _tag?: string })._tag === "None") return ""
  return typeof fallback === "object" ? "" : ` (default: ${String(fallback)})`
}

/** The flags of an options tree, in order. */
const flagsOf = (node: Node | undefined, fallback?: unknown): Array<Item & { readonly usage: string }> => {
  if (node === undefined) return []
  switch (node._tag) {
    case "Single": {
      const value = valueOf(node)
      const names = [
        node.fullName as string,
        ...((node.aliases ?? []) as ReadonlyArray<string>).map((a) => a.length === 1 ? `-${a}` : `--${a}`)
      ]
      const term = `${names.join(", ")}${value === "" ? "" : ` ${value}`}`
      const description = docText(node.description)
      return [{
        term,
        usage: `[${node.fullName}${value === "" ? "" : ` ${value}`}]`,
        description: /\bdefault\b/.test(description) ? description : `${description}${defaultText(fallback)}`
      }]
    }
    case "Map":
    case "Variadic":
    case "WithFallback":
      return flagsOf(node.options, fallback)
    case "WithDefault":
      return flagsOf(node.options, node.fallback)
    case "Both":
    case "OrElse":
      return [...flagsOf(node.left), ...flagsOf(node.right)]
    default:
      return []
  }
}

/** The arguments of an args tree, in order. */
const argsOf = (node: Node | undefined, optional = false, many = false): Array<Item & { readonly usage: string }> => {
  if (node === undefined) return []
  switch (node._tag) {
    case "Single": {
      const name = node.pseudoName?._tag === "Some"
        ? String(node.pseudoName.value)
        : String(node.name).replace(/[<>]/g, "")
      const shown = `${name}${many ? "..." : ""}`
      return [{
        term: shown,
        usage: optional ? `[${shown}]` : shown,
        description: `${docText(node.description)}${optional ? " (optional)" : ""}`
      }]
    }
    case "Map":
      return argsOf(node.args, optional, many)
    case "WithDefault":
      return argsOf(node.args, true, many)
    case "Variadic":
      return argsOf(node.args, optional || node.min?._tag !== "Some" || node.min.value === 0, true)
    case "Both":
      return [...argsOf(node.left, optional, many), ...argsOf(node.right, optional, many)]
    default:
      return []
  }
}

/** The standard command under a descriptor's maps. */
const standard = (descriptor: Node): Node =>
  descriptor._tag === "Standard" || descriptor.command === undefined ? descriptor : standard(descriptor.command)

/** What the help shows of one subcommand. */
export const describe = (command: CliCommand): Described => {
  const std = standard((command as unknown as { readonly descriptor: Node }).descriptor)
  const flags = flagsOf(std.options)
  const args = argsOf(std.args)
  return {
    name: String(std.name),
    description: docText(std.description),
    flags,
    args,
    usage: [`branchlog ${std.name}`, ...args.map((a) => a.usage), ...flags.map((f) => f.usage)].join(" ")
  }
}

/** The flags every command takes, listed once. */
export const globalFlags: ReadonlyArray<Item> = [
  { term: "--verbose", description: "print an error's fields and a defect's stack" },
  {
    term: "--lock-timeout DURATION",
    description: "how long a write waits for a transcript's lock: 500ms, 5s, 2m, or milliseconds (default 60s)"
  },
  { term: "--no-index", description: "read commands write no sidecar index beside the session (they use a valid one)" },
  { term: "-h, --help", description: "this help; after a command, that command's flags" },
  { term: "--version", description: "print the version" },
  { term: "--completions bash|zsh|fish|sh", description: "print a shell completion script" },
  { term: "--log-level LEVEL", description: "the least level of the libraries' notices printed on stderr" }
]

/** Examples, for the overview and for each command. */
const examples: Record<string, ReadonlyArray<readonly [string, string]>> = {
  "": [
    ["branchlog continue", "the latest session of this folder (branchlog's, pi's or OpenClaw's)"],
    ["branchlog show ef958aa1", "a session by a prefix of its id"],
    ["branchlog ls --all", "every session, newest first"],
    ["branchlog info --last --json", "the latest session's counts and token totals, as JSON"],
    ["branchlog context --last --llm", "what the model receives next, as JSON"],
    ["branchlog fsck ~/.pi/agent/sessions", "check every session of a folder"]
  ],
  continue: [["branchlog continue", "the latest session of this folder"], [
    "branchlog continue --json",
    "its entries as JSON"
  ]],
  show: [["branchlog show ef958aa1", "by id prefix"], ["branchlog show --last --full", "the latest, from the root"]],
  info: [["branchlog info FILE", "counts, leaf, tokens and cost"], ["branchlog info --last --json", "as JSON"]],
  tree: [["branchlog tree --last", "the latest session's tree"]],
  context: [["branchlog context FILE --llm", "what the model receives, as JSON"], [
    "branchlog context FILE --leaf ID",
    "the context at another entry"
  ]],
  ls: [["branchlog ls", "this folder's sessions"], ["branchlog ls --all --json", "every session, as JSON"]],
  import: [["branchlog import ~/.claude/projects/X/SESSION.jsonl", "into branchlog's folder"], [
    "branchlog import SRC --out -",
    "the session on stdout"
  ]],
  fork: [["branchlog fork FILE --from ID --json", "a new session of the path up to ID"]],
  label: [["branchlog label FILE ID start", "label an entry"], ["branchlog label FILE ID", "clear it"]],
  export: [["branchlog export FILE --html page.html", "a self-contained page"]]
}

/** `text` wrapped at `width` columns, each line after the first starting with `indent`. */
const wrap = (text: string, width: number, indent = ""): string => {
  const lines: Array<string> = []
  let line = ""
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    const room = lines.length === 0 ? width : width - indent.length
    if (line !== "" && line.length + 1 + word.length > room) {
      lines.push(line)
      line = word
    } else line = line === "" ? word : `${line} ${word}`
  }
  if (line !== "") lines.push(line)
  return lines.join(`\n${indent}`)
}

/** `term  description` lines, the descriptions in one column, wrapped under it when the line is too long. */
const table = (items: ReadonlyArray<Item>, width: number, oneLine = false): Array<string> => {
  // a term longer than this sits on its own line, above its description
  const termWidth = Math.max(0, ...items.map((i) => i.term.length).filter((n) => n <= 24))
  const out: Array<string> = []
  for (const { description, term } of items) {
    const lead = `  ${term.padEnd(termWidth)}  `
    const room = Math.max(20, width - termWidth - 4)
    const indent = " ".repeat(termWidth + 4)
    const text = oneLine ? fit(description, room) : wrap(description, room).split("\n").join(`\n${indent}`)
    out.push(term.length > termWidth ? `  ${term}\n${indent}${text}` : `${lead}${text}`)
  }
  return out
}

/** The first clause of a description: what fits one line of the overview. */
const summary = (text: string): string => {
  const cut = text.search(/[:;.](\s|$)/)
  // parentheses (and one the cut left open) are details for the command's own help
  return (cut === -1 ? text : text.slice(0, cut)).replace(/\s*\([^)]*(\)|$)/g, "")
}

const exampleLines = (name: string, width: number) => {
  const list = examples[name] ?? []
  return list.length === 0
    ? []
    : ["", "Examples:", ...table(list.map(([term, description]) => ({ term, description })), width)]
}

const exitCodes = "Exit codes: 0 success; 1 problems found (fsck) or an operation failed; 2 a usage error."

/** The overview: the commands, one line each; the global flags; examples. */
export const overview = (commands: ReadonlyArray<CliCommand>, version: string): string => {
  const width = columns()
  const described = commands.map(describe)
  return [
    wrap(
      `branchlog ${version}: keep, inspect and repair the transcripts of LLM agent sessions (pi / OpenClaw, version 3).`,
      width
    ),
    "",
    "Usage: branchlog COMMAND [ARGS] [FLAGS]",
    "       branchlog COMMAND --help   (its arguments, flags and examples)",
    "",
    "Commands:",
    ...table(described.map((d) => ({ term: d.name, description: summary(d.description) })), width, true),
    "",
    "Global flags (anywhere on the line):",
    ...table(globalFlags, width),
    ...exampleLines("", width),
    "",
    wrap(exitCodes, width)
  ].join("\n")
}

/** One command's help: usage, description, arguments, flags, the global flags named, examples. */
export const commandHelp = (command: CliCommand): string => {
  const width = columns()
  const d = describe(command)
  return [
    wrap(`Usage: ${d.usage}`, width, " ".repeat(`Usage: branchlog ${d.name} `.length)),
    "",
    wrap(d.description, width),
    ...(d.args.length === 0 ? [] : ["", "Arguments:", ...table(d.args, width)]),
    ...(d.flags.length === 0 ? [] : ["", "Flags:", ...table(d.flags, width)]),
    "",
    wrap(
      "Global flags: --verbose, --lock-timeout DURATION, --no-index, --help, --version, --completions, --log-level (branchlog --help)",
      width
    ),
    ...exampleLines(d.name, width),
    "",
    wrap(exitCodes, width)
  ].join("\n")
}

/**
 * Whether `args` (after the global options were taken out) ask for help: none at all, `-h` or
 * `--help` anywhere before `--`, or `help [COMMAND]`; with the command named, if any.
 */
export const request = (args: ReadonlyArray<string>): { readonly command: string | undefined } | undefined => {
  const end = args.indexOf("--")
  const head = end === -1 ? args : args.slice(0, end)
  const words = head.filter((arg, i) => !arg.startsWith("-") && head[i - 1] !== "--log-level")
  if (args.length === 0) return { command: undefined }
  if (words[0] === "help") return { command: words[1] }
  return head.includes("--help") || head.includes("-h") ? { command: words[0] } : undefined
}
