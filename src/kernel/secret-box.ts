// Temporary passthrough: the i24 branch replaces this file with real sealing at merge.
export function sealSecret(plain: string, aad: string): string {
  void aad;
  return plain;
}
export function openSecret(sealed: string, aad: string): string {
  void aad;
  return sealed;
}
