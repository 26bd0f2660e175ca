import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { tokenFromLocation } from './api';
import { App } from './App';
import { ticketFromLocation } from './document-api';
import { IdentifyPage } from './IdentifyPage';
import './styles.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    {window.location.pathname.startsWith('/document/') ? (
      <IdentifyPage ticket={ticketFromLocation()} />
    ) : (
      <App token={tokenFromLocation()} />
    )}
  </StrictMode>,
);
