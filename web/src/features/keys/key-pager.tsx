/** Previous / next over the API's offset pages, with where this page sits in the whole list. */
export function KeyPager({ offset, shown, total, pageSize, nextOffset, onOffset }: { offset: number; shown: number; total: number; pageSize: number; nextOffset: number | null | undefined; onOffset: (offset: number) => void }) {
  return (
    <nav className="row pager" aria-label="Key pages">
      <button type="button" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - pageSize))}>
        Previous
      </button>
      <span className="muted">
        {offset + 1}–{offset + shown} of {total}
      </span>
      <button type="button" disabled={nextOffset === null || nextOffset === undefined} onClick={() => onOffset(nextOffset ?? offset)}>
        Next
      </button>
    </nav>
  );
}
