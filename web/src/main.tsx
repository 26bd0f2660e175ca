import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { tokenFromLocation } from './api';
import { App } from './App';
import { ticketFromLocation } from './document-api';
import { IdentifyPage } from './IdentifyPage';
import { isSetLocation } from './set-api';
import './styles.css';
import { mark } from './timing';
import { openPdfEarly } from './use-pdf-document';

mark('app-start');

const publicDocument = window.location.pathname.startsWith('/document/');
// A signing link shows its one PDF: fetched and opened while the signing data is on its way.
if (!publicDocument && !isSetLocation()) {
  openPdfEarly(tokenFromLocation());
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>{publicDocument ? <IdentifyPage ticket={ticketFromLocation()} /> : <App token={tokenFromLocation()} />}</StrictMode>,
);
