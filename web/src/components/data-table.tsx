import type { ReactNode } from 'react';

/**
 * The console's one list table (issue 22): a real <table> while it fits, cards when its own width
 * is narrow (a container query in tables.css, so a phone and a squeezed column both get cards).
 * Cells wrap instead of widening the table, each card cell carries its column's name, and a row's
 * actions wrap on their own line: every action is on screen with no sideways scrolling.
 *
 * Rows are the page's own components (a row may keep state, like a channel's edited weight):
 * they use DataRow, RowHeader, DataCell and ActionsCell.
 */
export interface ColumnHead {
  label: string;
  className?: string;
  /** Read by screen readers only (the actions column). */
  hidden?: boolean;
}

export function DataTable({ caption, columns, children, label }: { caption: string; columns: readonly (ColumnHead | string | false)[]; children: ReactNode; label?: string }) {
  const heads = columns.filter((c): c is ColumnHead | string => c !== false).map((c) => (typeof c === 'string' ? { label: c } : c));
  return (
    <div className="data-table" aria-label={label}>
      <div className="table-wrap">
        <table>
          <caption className="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              {heads.map((head) => (
                <th key={head.label} scope="col" className={head.className}>
                  {head.hidden ? <span className="visually-hidden">{head.label}</span> : head.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>{children}</tbody>
        </table>
      </div>
    </div>
  );
}

export const DataRow = ({ children }: { children: ReactNode }) => <tr>{children}</tr>;

/** The row's name: a row header in the table, the card's title in cards. */
export function RowHeader({ children, title, className }: { children: ReactNode; title?: string | undefined; className?: string }) {
  return (
    <th scope="row" className={['row-head', className].filter(Boolean).join(' ')} title={title}>
      {children}
    </th>
  );
}

/** One value; `label` is its column's name, shown before it in cards. */
export function DataCell({ label, children, className, title }: { label: string; children?: ReactNode; className?: string | undefined; title?: string | undefined }) {
  return (
    <td data-label={label} className={className} title={title}>
      {children}
    </td>
  );
}

/** The row's actions: buttons that wrap, never a column wider than the page. */
export function ActionsCell({ children, status }: { children: ReactNode; status?: ReactNode }) {
  return (
    <td className="row-actions" data-label="Actions">
      <div className="actions">{children}</div>
      {status}
    </td>
  );
}
