/** The mean of `values`; 0 for an empty list. */
export function average(values) {
  const sum = values.reduce((total, value) => total + value, 0);
  return sum / values.length;
}
