/** Title Case: the first letter of each word upper case, the rest lower case. */
export function titleCase(text) {
  return text
    .split(" ")
    .map((word) => (word ? word[0].toUpperCase() + word.slice(1) : word))
    .join(" ");
}
