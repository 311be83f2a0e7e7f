/** Tools of the file_adapter template. Fixed: a candidate may not change this file. */

export interface CountWordsInput {
  text: string;
}

/** Count the words in a text: maximal runs of non-whitespace characters. */
export function countWords(input: CountWordsInput): { count: number } {
  const words = input.text.split(/\s+/u).filter((word) => word.length > 0);
  return { count: words.length };
}
