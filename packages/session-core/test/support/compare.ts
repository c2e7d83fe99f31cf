/** JSON round trip: what `JSON.stringify` would print, parsed back (undefined fields gone). */
export const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value))

/** Replace every tree node id by its position in `nodes` (`#0`, `#1`, …), for files whose ids are minted. */
export const structuralTree = (tree: any): unknown => {
  const position = new Map<string, string>(tree.nodes.map((node: any, i: number) => [node.id, `#${i}`]))
  const map = (id: string | null) => (id === null ? null : position.get(id) ?? `?${id}`)
  return {
    leafId: map(tree.leafId),
    roots: tree.roots.map(map),
    nodes: tree.nodes.map((node: any) => ({
      ...node,
      id: map(node.id),
      parentId: map(node.parentId),
      children: node.children.map(map)
    }))
  }
}

/** Replace the values of entry-id fields (`leafId`, `fromId`) by a type tag, for minted ids. */
export const idsAsStrings = (value: unknown): unknown =>
  JSON.parse(
    JSON.stringify(value),
    (key, v) => (key === "leafId" || key === "fromId") && typeof v === "string" ? "<string>" : v
  )

/** Set the values at JSON pointers to a type tag (for `volatile` pointers). */
export const maskPointers = (value: unknown, pointers: ReadonlyArray<string>): unknown => {
  const copy = JSON.parse(JSON.stringify(value))
  for (const pointer of pointers) {
    const parts = pointer.split("/").slice(1).map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
    let target = copy
    for (const part of parts.slice(0, -1)) target = target?.[part]
    const last = parts[parts.length - 1]
    if (target !== undefined && target !== null && last !== undefined && last in target) {
      target[last] = `<${typeof target[last]}>`
    }
  }
  return copy
}
