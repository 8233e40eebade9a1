const DAY_MS = 86_400_000;

/** Local midnight today: "Today" and "This month" start at the browser's day boundary. */
const midnight = () => {
  const d = new Date();
  d.setHours(0, 0, 0, 0);
  return d;
};

/** One-click ranges for a report's filters: today, the last 7 or 30 days, this month (each open-ended). */
export function DateRangePresets({ onPick }: { onPick: (from: Date, to?: Date) => void }) {
  return (
    <div className="row" role="group" aria-label="Date range presets">
      <span className="muted">Range:</span>
      <button type="button" onClick={() => onPick(midnight())}>
        Today
      </button>
      <button type="button" onClick={() => onPick(new Date(Date.now() - 7 * DAY_MS))}>
        Last 7 days
      </button>
      <button type="button" onClick={() => onPick(new Date(Date.now() - 30 * DAY_MS))}>
        Last 30 days
      </button>
      <button
        type="button"
        onClick={() => {
          const start = midnight();
          start.setDate(1);
          onPick(start);
        }}
      >
        This month
      </button>
    </div>
  );
}
