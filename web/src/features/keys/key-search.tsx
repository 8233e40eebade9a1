import { useState } from 'react';

/** The name search (applied on submit) and the "show revoked" switch; either one starts again from the first page. */
export function KeySearch({ showRevoked, onSearch, onShowRevoked }: { showRevoked: boolean; onSearch: (q: string) => void; onShowRevoked: (show: boolean) => void }) {
  const [search, setSearch] = useState('');
  return (
    <form
      className="row"
      role="search"
      onSubmit={(event) => {
        event.preventDefault();
        onSearch(search.trim());
      }}
    >
      <label className="inline">
        Search keys
        <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="Part of a name" style={{ width: '14rem' }} />
      </label>
      <button type="submit">Search</button>
      <label className="inline">
        <input type="checkbox" checked={showRevoked} onChange={(e) => onShowRevoked(e.target.checked)} />{' '}
        Show revoked keys
      </label>
    </form>
  );
}
