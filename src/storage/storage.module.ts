import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { AdminStorageController, StorageController } from './storage.controller.js';
import { StorageRepository } from './storage.repository.js';
import { StorageService } from './storage.service.js';

/** Cloud save: players' storage objects. The economy writes them too, in its own transactions (StorageService.applyWrites). */
@Module({
  imports: [AuthModule],
  controllers: [StorageController, AdminStorageController],
  providers: [StorageService, StorageRepository],
  exports: [StorageService],
})
export class StorageModule {}
