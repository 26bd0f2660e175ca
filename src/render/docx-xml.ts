// The WordprocessingML namespaces and the small DOM helpers the docx engine walks parts with.
import type { Element, Node } from '@xmldom/xmldom';

/** WordprocessingML main namespace (ECMA-376 Part 1, 17). */
export const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
export const XML_NS = 'http://www.w3.org/XML/1998/namespace';

const ELEMENT_NODE = 1;

export function isElement(node: Node | null | undefined): node is Element {
  return !!node && node.nodeType === ELEMENT_NODE;
}

export function elementChildren(el: Element): Element[] {
  return Array.from(el.childNodes).filter(isElement);
}

export function firstChild(el: Element, localName: string): Element | undefined {
  return elementChildren(el).find((c) => c.namespaceURI === W && c.localName === localName);
}

export function descendants(el: Element, localName: string): Element[] {
  return Array.from(el.getElementsByTagNameNS(W, localName));
}

export function firstDescendant(el: Element, localName: string): Element | undefined {
  return descendants(el, localName)[0];
}

export function ancestorsInclusive(node: Node): Node[] {
  const chain: Node[] = [];
  for (let n: Node | null = node; n; n = n.parentNode) {
    chain.push(n);
  }
  return chain;
}

export function clearChildren(el: Element): void {
  while (el.firstChild) {
    el.removeChild(el.firstChild);
  }
}
