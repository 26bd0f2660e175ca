// The operator's brand (GET /panel/api/operator-brand, no session needed): the panel's header shows
// its name and logo, and its colour becomes the panel's primary colour (until it is known, Sello's).
import { useEffect, useState } from 'react';
import { api } from './api';

export type OperatorBrand = Awaited<ReturnType<typeof api.operatorBrand>>;

export function useOperatorBrand(): OperatorBrand | null {
  const [brand, setBrand] = useState<OperatorBrand | null>(null);
  useEffect(() => {
    api.operatorBrand().then(setBrand, () => setBrand(null));
  }, []);
  useEffect(() => {
    if (brand?.colour) {
      document.documentElement.style.setProperty('--primary', brand.colour);
    }
  }, [brand]);
  return brand;
}
