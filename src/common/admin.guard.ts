import { CanActivate, ExecutionContext, Injectable, UseGuards } from '@nestjs/common';
import type { AuthenticatedRequest } from './auth.decorators.js';
import { forbidden } from './errors.js';

/** Runs after the global JwtGuard: only admins pass (catalog writes, truncates). */
@Injectable()
export class AdminGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (!context.switchToHttp().getRequest<AuthenticatedRequest>().caller?.isAdmin) {
      throw forbidden('only admins may do this');
    }
    return true;
  }
}

export const AdminOnly = () => UseGuards(AdminGuard);
