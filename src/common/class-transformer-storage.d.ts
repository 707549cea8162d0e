// class-transformer keeps its @Type() metadata in this module and types it apart (types/storage.d.ts);
// @nestjs/mapped-types reads it from the same path. The validation pipe reads which fields hold DTOs.
declare module 'class-transformer/cjs/storage.js' {
  export { defaultMetadataStorage } from 'class-transformer/types/storage.js';
}
