import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean } from 'class-validator';
import { IsOmittable } from '../../common/validators.js';
import { DeviceIdProperty } from '../users/dto/device-id.js';

export class DeviceSignInDto {
  @DeviceIdProperty()
  deviceId: string;

  /** Whether a device nobody has signed in with yet creates an account (default true); false: 404 NO_SUCH_ACCOUNT instead. */
  @ApiProperty({ required: false, default: true, example: true })
  @IsOmittable()
  @IsBoolean()
  create?: boolean;
}
