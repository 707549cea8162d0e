import { IsOmittable } from '../../common/validators.js';
import { DeviceIdProperty } from '../../auth/users/dto/device-id.js';

export class UnlinkDto {
  /** Which device, when unlinking a device (required then, and only then). */
  @DeviceIdProperty(false)
  @IsOmittable()
  deviceId?: string;
}
