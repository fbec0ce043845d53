/** Writes a whole number of minutes the way an email reader expects: "45 minutes", "1 hour", "7 days". */
export function formatDuration(minutes: number): string {
  const whole = Math.max(1, Math.round(minutes));
  const day = 24 * 60;
  if (whole % day === 0) return plural(whole / day, 'day');
  if (whole % 60 === 0) return plural(whole / 60, 'hour');
  return plural(whole, 'minute');
}

function plural(count: number, unit: string): string {
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}
