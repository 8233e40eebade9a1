import { useEffect } from 'react';

/** Each page names itself in the tab title, so history and screen readers say where you are. */
export function usePageTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Gateway console`;
  }, [title]);
}
