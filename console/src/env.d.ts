// Style sheets are bundled by Vite (main.tsx imports them for their effect only).
declare module '*.css';
