/** A URL slug: lower case, words joined by single dashes, no dash at either end. */
export function slugify(title) {
  return title.toLowerCase().replace(/[^a-z0-9]/g, "-");
}
