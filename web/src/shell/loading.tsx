/** The one "still loading" line: the shell shows it while a page or the session loads, pages while their data does. */
export const Loading = ({ what = 'Loading' }: { what?: string }) => (
  <p className="muted" role="status" aria-live="polite">
    {what}…
  </p>
);
