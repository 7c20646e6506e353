// The type the type check gives a .vue file (Vite compiles it; the component's logic is in controller.ts).
declare module '*.vue' {
  import type { DefineComponent } from 'vue';
  const component: DefineComponent<object, object, unknown>;
  export default component;
}
