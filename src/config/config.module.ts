import { type DynamicModule, Global, Inject, Module } from '@nestjs/common';
import type { AppConfig } from './environment.js';

/** Injection token of the process's one AppConfig. */
export const APP_CONFIG = Symbol('AppConfig');

/** Injects the configuration: `constructor(@InjectConfig() private readonly config: AppConfig)`. */
export const InjectConfig = () => Inject(APP_CONFIG);

/**
 * Hands every module the configuration that whoever starts the application parsed once: main.ts and
 * the scripts from the environment (loadConfig), the tests from their own variables.
 */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig): DynamicModule {
    return { module: ConfigModule, providers: [{ provide: APP_CONFIG, useValue: config }], exports: [APP_CONFIG] };
  }
}
