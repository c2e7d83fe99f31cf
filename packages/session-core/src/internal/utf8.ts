/**
 * The UTF-8 byte length of a JavaScript string, without allocating (the line codec counts byte
 * offsets of every line, and `TextEncoder` would allocate a buffer per line). Lone surrogates
 * count as the three bytes of U+FFFD, as an encoder writes them.
 */
export const utf8Length = (text: string): number => {
  let bytes = 0
  const length = text.length
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) bytes += 1
    else if (code < 0x800) bytes += 2
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < length) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4
        i++
      } else bytes += 3
    } else bytes += 3
  }
  return bytes
}
