/** The number of words in `text`: runs of non-whitespace characters. */
export function wordCount(text) {
  return text.split(" ").length;
}
