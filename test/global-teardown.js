export default async function globalTeardown() {
  await globalThis.__LOCAL_STACK__?.stop();
}
