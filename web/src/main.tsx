import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { tokenFromLocation } from './api';
import { App } from './App';
import './styles.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App token={tokenFromLocation()} />
  </StrictMode>,
);
