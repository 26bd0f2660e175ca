// The panel's own routes under /panel, with the History API: links change the address without a
// reload, and the browser's back and forward buttons work.
import { useEffect, useState } from 'react';

export type Route =
  | { page: 'sign-in' }
  | { page: 'documents' }
  | { page: 'document'; ticket: string }
  | { page: 'webhooks' }
  | { page: 'sets' }
  | { page: 'templates' }
  | { page: 'keys' }
  | { page: 'usage' }
  | { page: 'brand' }
  | { page: 'bulk' }
  | { page: 'bulk-run'; bulkId: string }
  | { page: 'send' };

export function parseRoute(pathname: string): Route {
  const path = pathname.replace(/\/+$/, '');
  const doc = /^\/panel\/documents\/([^/]+)$/.exec(path);
  if (doc) {
    return { page: 'document', ticket: decodeURIComponent(doc[1]) };
  }
  const bulkRun = /^\/panel\/bulk\/([^/]+)$/.exec(path);
  if (bulkRun) {
    return { page: 'bulk-run', bulkId: decodeURIComponent(bulkRun[1]) };
  }
  switch (path) {
    case '/panel/sign-in':
      return { page: 'sign-in' };
    case '/panel/webhooks':
      return { page: 'webhooks' };
    case '/panel/sets':
      return { page: 'sets' };
    case '/panel/templates':
      return { page: 'templates' };
    case '/panel/keys':
      return { page: 'keys' };
    case '/panel/usage':
      return { page: 'usage' };
    case '/panel/brand':
      return { page: 'brand' };
    case '/panel/bulk':
      return { page: 'bulk' };
    case '/panel/send':
      return { page: 'send' };
    default:
      return { page: 'documents' };
  }
}

export function navigate(to: string): void {
  window.history.pushState(null, '', to);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.pathname));
  useEffect(() => {
    const on = () => setRoute(parseRoute(window.location.pathname));
    window.addEventListener('popstate', on);
    return () => window.removeEventListener('popstate', on);
  }, []);
  return route;
}
